/**
 * A read-only Iceberg REST catalog over Tableflow's catalog, so external engines (Spark, Trino,
 * PyIceberg, Iceberg's own {@code RESTCatalog}) can find and read the tables: the config,
 * namespace and table routes of the REST spec, answered with Iceberg's own response classes and
 * serializers, and every write route refused with 405, because Tableflow alone writes its tables.
 * {@link io.floe.tableflow.rest.ReadOnlyRestCatalog} answers transport-neutral
 * {@link io.floe.tableflow.rest.RestRequest}s; {@link io.floe.tableflow.rest.RestCatalogHandler}
 * serves it on the JDK's HTTP server and answers 503 until the catalog exists.
 */
package io.floe.tableflow.rest;
