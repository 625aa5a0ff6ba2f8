/**
 * Retention: {@code retention.ms} and {@code retention.bytes} move each partition's log start forward
 * (for topics whose {@code cleanup.policy} includes {@code delete}), and the batch rows below a log
 * start (moved by retention or by DeleteRecords) are removed, releasing their objects.
 */
package io.floe.maintenance.retention;
