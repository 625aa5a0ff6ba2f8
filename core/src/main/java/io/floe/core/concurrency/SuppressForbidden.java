package io.floe.core.concurrency;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the one home of an API the build bans elsewhere ({@code build-rules/forbidden-apis.txt}: real
 * time, sleeps, randomness, raw executors); {@link #value()} says why it belongs here.
 */
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD})
public @interface SuppressForbidden {
    String value();
}
