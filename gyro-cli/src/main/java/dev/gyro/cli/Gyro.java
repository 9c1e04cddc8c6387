package dev.gyro.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code gyro} command. */
@Command(name = "gyro", mixinStandardHelpOptions = true, versionProvider = Gyro.Version.class,
        description = "Gyro: scale out an OLTP application over N unmodified database instances, serializably.",
        subcommands = {DemoCommand.class, NewAppCommand.class, LoadCommand.class, WorkloadCommand.class, ClusterCommand.class, InstanceCommand.class, CertsCommand.class, CallCommand.class, LatencyCommand.class, BenchCommand.class, FuzzCommand.class,
                CommandLine.HelpCommand.class})
public final class Gyro implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** The version of the build, as Maven knows it (the version an application's pom depends on). */
    static final class Version implements CommandLine.IVersionProvider {
        public String[] getVersion() {
            return new String[] {"gyro " + NewAppCommand.gyroVersion()};
        }
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Gyro());
        Extensions.register(cl);
        // Bad input gets one clear line naming the problem, not a stack trace.
        cl.setExecutionExceptionHandler((e, command, parsed) -> {
            command.getErr().println("gyro " + command.getCommandName() + ": " + (e.getMessage() == null ? e : e.getMessage()));
            return 1;
        });
        return cl;
    }
}
