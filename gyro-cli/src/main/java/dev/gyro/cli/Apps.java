package dev.gyro.cli;

import dev.gyro.app.Application;
import dev.gyro.apps.micro.Micro;
import dev.gyro.apps.rubis.Rubis;
import dev.gyro.apps.store.OnlineStore;
import dev.gyro.apps.tpcc.Tpcc;
import dev.gyro.apps.tpcw.Tpcw;

import java.util.List;

/** The applications the gyro command knows by name. */
final class Apps {
    private Apps() {}

    static final List<String> NAMES = List.of(OnlineStore.NAME, Tpcw.NAME, Rubis.NAME, Tpcc.NAME, Micro.NAME);

    static Application byName(String name) {
        return switch (name) {
            case OnlineStore.NAME -> new OnlineStore();
            case Tpcw.NAME -> new Tpcw();
            case Rubis.NAME -> new Rubis();
            case Tpcc.NAME -> new Tpcc();
            case Micro.NAME -> new Micro();
            default -> throw new IllegalArgumentException("unknown application '" + name + "' (known: "
                    + String.join(", ", NAMES) + ")");
        };
    }
}
