/**
 * The agent's HTTP endpoint on the JDK's built-in server: a small route table of exact paths and
 * mounted prefixes, with Prometheus metrics at {@code /metrics} and a health check at
 * {@code /health}. Later modules mount their own handlers (the Iceberg REST catalog under
 * {@code /iceberg}).
 */
package io.floe.cli.http;
