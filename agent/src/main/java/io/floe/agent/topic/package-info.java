/** The agent's cached view of topics, with creation (explicit and automatic), deletion and config changes. */
package io.floe.agent.topic;
