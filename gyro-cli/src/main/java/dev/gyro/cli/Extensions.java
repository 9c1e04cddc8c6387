package dev.gyro.cli;

import picocli.CommandLine;

/** Subcommands contributed by other modules. */
final class Extensions {
    private Extensions() {}

    static void register(CommandLine cl) {
        cl.addSubcommand("analyze", new dev.gyro.analyzer.AnalyzeCommand());
    }
}
