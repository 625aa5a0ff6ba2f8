/**
 * {@code floe debug ...}: tools for an operator looking at stored data by hand. {@code floe debug
 * segment} verifies a segment object (a local file, or a key in an object store) and prints its
 * footer and one line per record batch, with each batch's CRC checked. They read only.
 */
package io.floe.cli.debug;
