/**
 * {@code floe agent}: the composition root. Settings come from flags, {@code FLOE_*} environment
 * variables and a properties file, in that order of precedence, and are validated into
 * {@link io.floe.cli.agent.AgentSettings}; {@link io.floe.cli.agent.AgentRuntime} then builds the
 * stores (chosen by URL scheme in {@link io.floe.cli.agent.Backends}, which the read-only operator
 * commands use too), the agent, its maintenance jobs, the Kafka listener and the HTTP endpoint by
 * hand, and takes them down again in reverse order.
 */
package io.floe.cli.agent;
