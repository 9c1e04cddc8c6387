package dev.gyro.cli;

import dev.gyro.app.Application;
import dev.gyro.apps.store.OnlineStore;

import java.util.List;

/** The applications the gyro command knows by name. */
final class Apps {
    private Apps() {}

    static final List<String> NAMES = List.of(OnlineStore.NAME);

    static Application byName(String name) {
        if (name.equals(OnlineStore.NAME)) return new OnlineStore();
        throw new IllegalArgumentException("unknown application '" + name + "' (known: " + String.join(", ", NAMES) + ")");
    }
}
