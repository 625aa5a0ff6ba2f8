/** The agent's bounded in-memory cache of object byte ranges. */
package io.floe.agent.cache;
