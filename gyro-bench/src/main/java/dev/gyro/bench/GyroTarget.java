package dev.gyro.bench;

import dev.gyro.app.Call;
import dev.gyro.app.Outcome;
import dev.gyro.client.GyroClient;
import dev.gyro.client.Reply;
import dev.gyro.client.Request;

import java.util.List;

/**
 * A Gyro cluster reached through the routing client. Every channel is a client {@link GyroClient.Session}, so one
 * emulated user reads its own writes wherever its requests run (DESIGN.md decision 9).
 */
public final class GyroTarget implements Target {

    private final GyroClient client;

    public GyroTarget(List<String> addresses) {
        this.client = GyroClient.connect(addresses);
    }

    public GyroClient client() {
        return client;
    }

    @Override
    public Channel open() {
        GyroClient.Session session = client.session();
        return call -> toResult(session.call(Request.of(call.transaction(), call.parameterArray())));
    }

    static Result toResult(Reply r) {
        Outcome o = switch (r.status()) {
            case OK -> Outcome.ok(r.values());
            case ABORTED -> new Outcome(Outcome.Status.ABORTED, List.of(), r.message());
            default -> new Outcome(Outcome.Status.FAILED, List.of(), r.status() + ": " + r.message());
        };
        return new Result(o, r.executedAs());
    }

    @Override
    public void close() {
        client.close();
    }
}
