/**
 * The SQL {@link io.floe.core.metadata.MetadataStore}: one implementation of the metadata contract
 * in portable SQL, with a small package-private {@code Dialect} for what differs between databases
 * (transactions, upsert syntax, row locking, error codes). SQLite is the embedded default, one agent
 * and one writer connection ({@code SingleWriterDatabase}); PostgreSQL is shared by many agents,
 * whose writers run concurrently on pooled connections ({@code PooledDatabase}) and queue on row
 * locks. The schema is created and upgraded by the versioned migrations in {@code Migrations}.
 */
package io.floe.metadata.sql;
