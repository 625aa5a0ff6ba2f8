package io.floe.cli.agent;

import java.util.EnumSet;
import picocli.CommandLine.Model.CommandSpec;

/**
 * The S3 options of {@code floe agent} for other commands that reach an {@code s3://} object store:
 * the same declarations and checks, from flags only (no environment, no config file). Add
 * {@link #mixin()} to the command with {@code @Mixin}.
 */
public final class S3Flags {

    private final SettingFlags flags =
            new SettingFlags(EnumSet.range(Setting.S3_ENDPOINT, Setting.S3_SECRET_ACCESS_KEY));

    /** The {@code --s3-*} options. */
    public CommandSpec mixin() {
        return flags.mixin();
    }

    /**
     * The options given, checked as {@code floe agent} checks them.
     *
     * @throws IllegalArgumentException naming the flag and its value when one is invalid
     */
    public S3Options options() {
        try {
            return SettingsResolver.s3Options(flags.given());
        } catch (InvalidSettingException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }
}
