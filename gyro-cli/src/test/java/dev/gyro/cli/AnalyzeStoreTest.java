package dev.gyro.cli;

import dev.gyro.app.Classification;
import dev.gyro.app.TransactionCatalog;
import dev.gyro.apps.store.OnlineStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * `gyro analyze` on the online store's own source gives the paper's classification (Section IV: createCart and
 * addItem local, order global, by cart) and the very file the runtime ships and consumes.
 */
class AnalyzeStoreTest {

    @TempDir
    Path dir;

    @Test
    void analyzingTheStoreSourceReproducesItsClassificationFile() {
        Path json = dir.resolve("store.json");
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        int exit;
        try {
            System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
            exit = Gyro.commandLine().execute("analyze", "../gyro-apps/src/main/java/dev/gyro/apps/store",
                    "--json", json.toString());
        } finally {
            System.setOut(saved);
        }
        assertThat(exit).as(bytes.toString(StandardCharsets.UTF_8)).isZero();
        Classification analyzed = Classification.read(json);
        Classification shipped = new OnlineStore().classification();
        analyzed.validateAgainst(new TransactionCatalog(new OnlineStore().transactions()));
        for (Classification.Rule r : shipped.rules()) {
            Classification.Rule a = analyzed.rule(r.name());
            assertThat(a.kind()).as(r.name()).isEqualTo(r.kind());
            assertThat(a.partitionBy()).as(r.name()).isEqualTo(r.partitionBy());
            assertThat(a.readOnly()).as(r.name()).isEqualTo(r.readOnly());
        }
        assertThat(analyzed.rules()).hasSameSizeAs(shipped.rules());
        // the rows a bucket move copies: the same tables and columns as the shipped file's
        assertThat(analyzed.partitionedTables()).isEqualTo(shipped.partitionedTables()).isNotEmpty();
    }
}
