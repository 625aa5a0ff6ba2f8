/**
 * {@code floe tables}: turning Tableflow on and off for topics (topic configs through the Kafka admin
 * API) and showing what a table holds and how far behind its topic it is (the agent's Iceberg REST
 * catalog and ListOffsets).
 */
package io.floe.cli.tables;
