/**
 * {@code floe storage ...}: what the stores hold, read from the metadata store directly, without an
 * agent. {@code floe storage stats} prints the totals of committed objects and bytes, uploads not
 * committed yet and objects waiting for deletion.
 */
package io.floe.cli.storage;
