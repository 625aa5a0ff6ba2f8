/**
 * The SQL {@link io.floe.core.metadata.MetadataStore}: one implementation of the metadata contract
 * in portable SQL, with a small package-private {@code Dialect} for what differs between databases
 * (connections, pragmas, upsert syntax, row locking). SQLite is the embedded default; the schema is
 * created and upgraded by the versioned migrations in {@code Migrations}.
 */
package io.floe.metadata.sql;
