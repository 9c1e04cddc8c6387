package dev.gyro.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code gyro} command. */
@Command(name = "gyro", mixinStandardHelpOptions = true, versionProvider = Gyro.Version.class,
        description = "Gyro: scale out an OLTP application over N unmodified database instances, serializably.",
        subcommands = {DemoCommand.class, NewAppCommand.class, LoadCommand.class, WorkloadCommand.class, ClusterCommand.class, InstanceCommand.class, CertsCommand.class, CallCommand.class, StatusCommand.class, LatencyCommand.class, BenchCommand.class, FuzzCommand.class, AttachCommand.class,
                CommandLine.HelpCommand.class})
public final class Gyro implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @CommandLine.Option(names = "--log-level", paramLabel = "LEVEL", scope = CommandLine.ScopeType.INHERIT,
            description = "how much Gyro logs (to standard error): error, warn, info (default), debug (each global's"
                    + " gsn, each token pass) or trace; passed on to the processes a command starts")
    void logLevel(String level) {
        try {
            Logging.level(level);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** The version of the build, as Maven knows it (the version an application's pom depends on). */
    static final class Version implements CommandLine.IVersionProvider {
        public String[] getVersion() {
            return new String[] {"gyro " + BuildSettings.version()};
        }
    }

    public static void main(String[] args) {
        Logging.fromArguments(args); // before any of Gyro's loggers is made
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
        cl.setParameterExceptionHandler(Gyro::badArguments);
        return cl;
    }

    /**
     * A misspelt command gets the nearest command's name (picocli's own suggestions miss transpositions such as
     * {@code dmeo}); any other bad argument its message and where the help is, not the whole usage text.
     */
    private static int badArguments(CommandLine.ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        java.io.PrintWriter err = cmd.getErr();
        String name = cmd.getCommandSpec().qualifiedName();
        if (e instanceof CommandLine.UnmatchedArgumentException u && !cmd.getSubcommands().isEmpty()
                && !u.getUnmatched().isEmpty() && !u.getUnmatched().get(0).startsWith("-")) {
            String typed = u.getUnmatched().get(0);
            String nearest = null;
            int best = Integer.MAX_VALUE;
            for (String candidate : cmd.getSubcommands().keySet()) {
                int d = editDistance(typed, candidate);
                if (d < best) {
                    best = d;
                    nearest = candidate;
                }
            }
            err.println(name + ": '" + typed + "' is not a command" + (nearest != null && best <= Math.max(2, typed.length() / 3)
                    ? "; did you mean '" + nearest + "'?" : "") + " ('" + name + " --help' lists the commands)");
        } else {
            err.println(name + ": " + e.getMessage() + " ('" + name + " --help' lists the options)");
        }
        err.flush();
        return cmd.getCommandSpec().exitCodeOnInvalidInput();
    }

    /** Edits (insert, delete, substitute, swap two neighbours) that turn {@code a} into {@code b}. */
    static int editDistance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) d[i][0] = i;
        for (int j = 0; j <= b.length(); j++) d[0][j] = j;
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1))
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
            }
        }
        return d[a.length()][b.length()];
    }
}
