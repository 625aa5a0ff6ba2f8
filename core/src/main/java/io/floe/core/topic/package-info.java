/** Topics: names, ids, partition counts and config overrides, as the metadata store keeps them. */
package io.floe.core.topic;
