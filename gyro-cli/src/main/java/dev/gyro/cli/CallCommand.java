package dev.gyro.cli;

import dev.gyro.client.GyroClient;
import dev.gyro.wire.Reply;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** Sends one request to a running ring, routed like any client's, and prints the reply. */
@Command(name = "call", mixinStandardHelpOptions = true,
        description = "Send one request to a running Gyro ring and print the reply, e.g. "
                + "gyro call --ring 127.0.0.1:7000 addItem 5 7 2")
final class CallCommand implements Callable<Integer> {

    @Option(names = "--ring", required = true, split = ",", description = "host:port of one or more instances")
    List<String> ring;

    @Parameters(index = "0", description = "the transaction")
    String transaction;

    @Parameters(index = "1..*", arity = "0..*",
            description = "its parameters: integers, decimals (with a '.'), or text (quote text that looks numeric: 's:42')")
    List<String> parameters = new ArrayList<>();

    @Override
    public Integer call() {
        List<Object> values = new ArrayList<>();
        for (String p : parameters) values.add(parse(p));
        try (GyroClient client = GyroClient.connect(ring)) {
            Reply r = client.call(transaction, values.toArray());
            System.out.println(r);
            return r.ok() ? 0 : 1;
        }
    }

    static Object parse(String p) {
        if (p.startsWith("s:")) return p.substring(2);
        try {
            return Long.parseLong(p);
        } catch (NumberFormatException notLong) {
            try {
                if (p.contains(".")) return Double.parseDouble(p);
            } catch (NumberFormatException notDouble) {
                // text
            }
            return p;
        }
    }
}
