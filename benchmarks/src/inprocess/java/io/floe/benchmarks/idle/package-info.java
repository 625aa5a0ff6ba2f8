/**
 * The idle-agent benchmark: the metadata queries an agent with no clients makes per second against a shared
 * PostgreSQL, with nothing stored and with many transactional ids and groups stored.
 */
package io.floe.benchmarks.idle;
