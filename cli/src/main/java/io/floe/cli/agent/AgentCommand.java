package io.floe.cli.agent;

import io.floe.core.concurrency.Concurrency;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code floe agent}: runs one agent until SIGTERM or SIGINT, then shuts it down in order and exits
 * with 0. Each option can also come from a {@code FLOE_*} environment variable or a {@code --config}
 * properties file; a flag wins over the environment, which wins over the file.
 */
@Command(
        name = "agent",
        sortOptions = false,
        description = "Runs a Floe agent: a Kafka-compatible server that keeps its data in an object store.",
        footerHeading = "%nConfiguration:%n",
        footer = {
            "Each option can also be set by an environment variable FLOE_<NAME> (--flush-interval-ms is"
                    + " FLOE_FLUSH_INTERVAL_MS) or in the --config file (flush-interval-ms=20).",
            "A flag wins over the environment, which wins over the config file, which wins over the default."
        })
public final class AgentCommand implements Callable<Integer> {

    private static final Logger LOGGER = LoggerFactory.getLogger(AgentCommand.class);
    private static final String CONFIG_ENV = "FLOE_CONFIG";

    private final Map<String, String> env;
    private final SettingFlags flags = new SettingFlags(EnumSet.allOf(Setting.class));

    @Spec
    private CommandSpec spec;

    /** One option per {@link Setting}, made from its declaration. */
    @Mixin(name = "settings")
    private CommandSpec settingOptions = flags.mixin();

    @Option(
            names = "--config",
            paramLabel = "FILE",
            order = 102,
            description = "Properties file with settings, keyed by long option name (flush-interval-ms=20)." + " Env: "
                    + CONFIG_ENV + ".")
    private Path configFile;

    /** {@code env} stands for the process environment. */
    public AgentCommand(Map<String, String> env) {
        this.env = Map.copyOf(Objects.requireNonNull(env, "env"));
    }

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter err = spec.commandLine().getErr();
        AgentSettings settings;
        try {
            settings = settings();
        } catch (InvalidSettingException e) {
            err.println("floe agent: " + e.getMessage());
            return CommandLine.ExitCode.USAGE;
        }
        // The hook is in place before the agent announces that it started: a SIGTERM right after the
        // start-up line (or during the start) waits for the start to finish, then stops the agent in order.
        CompletableFuture<AgentRuntime> started = new CompletableFuture<>();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stopWhenStarted(started), "floe-shutdown"));
        AgentRuntime runtime;
        try {
            runtime = AgentRuntime.start(settings, Concurrency.threads().clock());
        } catch (AgentStartException e) {
            started.completeExceptionally(e);
            err.println("floe agent: " + e.getMessage());
            return CommandLine.ExitCode.SOFTWARE;
        } catch (RuntimeException | Error e) {
            started.completeExceptionally(e);
            throw e;
        }
        started.complete(runtime);
        runtime.awaitStopped();
        return runtime.lostNodeId() ? CommandLine.ExitCode.SOFTWARE : CommandLine.ExitCode.OK;
    }

    /** The settings from flags, environment and config file, validated. */
    AgentSettings settings() {
        return SettingsResolver.resolve(flags.given(), env, configFile());
    }

    private ConfigFile configFile() {
        if (configFile != null) {
            return ConfigFile.load(configFile);
        }
        String fromEnv = env.get(CONFIG_ENV);
        return fromEnv == null || fromEnv.isBlank() ? ConfigFile.NONE : ConfigFile.load(Path.of(fromEnv.trim()));
    }

    /** The README.md table of the settings, {@code --config} last: the table {@code ReadmeSettingsTableTest} checks. */
    static String readmeTable() {
        return Setting.readmeTable() + "\n"
                + Setting.row(
                        "`--config FILE`",
                        "`" + CONFIG_ENV + "`",
                        "none",
                        "properties file with any of the settings above");
    }

    /**
     * Runs in the shutdown hook on SIGTERM or SIGINT. After its hooks the JVM would exit with 128 +
     * the signal number (143, 130); an orderly shutdown is not a failure, so the hook halts with 0
     * once everything is stopped (1 when a part failed to stop). Halting skips the JVM's own
     * shutdown work, notably {@code File.deleteOnExit}: the native library sqlite-jdbc extracted to
     * {@code java.io.tmpdir} (about 1 MB a start) is deleted here instead.
     */
    /** Stops the agent once its start has finished; nothing when the start failed. */
    private static void stopWhenStarted(CompletableFuture<AgentRuntime> started) {
        AgentRuntime runtime;
        try {
            runtime = started.join();
        } catch (CompletionException | CancellationException e) {
            return; // the start failed: it stopped what it had started, and the command reported it
        }
        stopAndHalt(runtime);
    }

    private static void stopAndHalt(AgentRuntime runtime) {
        LOGGER.info("Shutdown requested");
        boolean clean = runtime.stop();
        ExtractedNativeLibraries.deleteLoaded("libsqlitejdbc");
        Runtime.getRuntime().halt(clean ? CommandLine.ExitCode.OK : CommandLine.ExitCode.SOFTWARE);
    }
}
