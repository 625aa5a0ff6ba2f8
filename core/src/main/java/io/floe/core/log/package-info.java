/**
 * The vocabulary of a partition's log: partitions, offsets markers and batch coordinates (where a
 * committed batch lives in object storage). Pure values, no I/O.
 */
package io.floe.core.log;
