/**
 * The {@code floe} executable: the top-level command, its version, and the tree of subcommands
 * ({@code agent} runs an agent, {@code topics} manages topics through the Kafka protocol). Nothing in
 * Floe depends on this module; it is where the pieces are put together.
 */
package io.floe.cli;
