/** Topic and agent configs as Kafka clients see them: names, defaults, types, sources, validation. */
package io.floe.core.config;
