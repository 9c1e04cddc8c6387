package dev.gyro.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Commands given --dir or --out empty and delete only folders Gyro made (marked with .gyro-data) or that were empty:
 * a folder with a user's files in it is refused and keeps every file.
 */
class SafeFoldersTest {

    @TempDir
    Path base;

    @Test
    void aNewOrEmptyFolderIsClaimedAndMarked() throws Exception {
        Path fresh = OwnedFolder.claim(base.resolve("new/deeper"), "--dir");
        assertThat(fresh.resolve(OwnedFolder.MARKER)).exists();
        Path empty = Files.createDirectories(base.resolve("empty"));
        OwnedFolder.claim(empty, "--dir");
        assertThat(empty.resolve(OwnedFolder.MARKER)).exists();
    }

    @Test
    void aFolderWithOtherFilesIsRefusedNamingThemAndKeepsThem() throws Exception {
        Path mine = Files.createDirectories(base.resolve("home"));
        Files.writeString(mine.resolve("thesis.tex"), "years of work");
        Files.createDirectories(mine.resolve("photos"));
        assertThatThrownBy(() -> OwnedFolder.fresh(mine, "--dir")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--dir " + mine).hasMessageContaining("photos, thesis.tex")
                .hasMessageContaining(".gyro-data");
        OwnedFolder.delete(mine);
        assertThat(mine.resolve("thesis.tex")).hasContent("years of work");
        assertThat(mine.resolve("photos")).isDirectory();
        assertThat(mine.resolve(OwnedFolder.MARKER)).doesNotExist();
    }

    @Test
    void aMarkedFolderIsEmptiedButKeepsItsMarkerAndIsReleasedWhenEmpty() throws Exception {
        Path dir = OwnedFolder.claim(base.resolve("data"), "--dir");
        Files.writeString(dir.resolve("instance-0.db"), "x");
        Files.createDirectories(dir.resolve("server-0/data"));
        OwnedFolder.fresh(dir, "--dir");
        try (var left = Files.list(dir)) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactly(OwnedFolder.MARKER);
        }
        OwnedFolder.releaseIfEmpty(dir);
        assertThat(dir).doesNotExist();
    }

    @Test
    void aFileIsNotAFolder() throws Exception {
        Path file = Files.writeString(base.resolve("notes.txt"), "keep");
        assertThatThrownBy(() -> OwnedFolder.claim(file, "--out")).hasMessageContaining("is a file");
        assertThat(file).hasContent("keep");
    }

    @Test
    void demoRefusesAFolderWithTheUsersFilesAndRunsTwiceInItsOwn() throws Exception {
        Path mine = Files.createDirectories(base.resolve("mine"));
        Files.writeString(mine.resolve("precious.txt"), "keep");
        ClusterCommandTest.Run refused = ClusterCommandTest.gyro("demo", "--duration", "1", "--clients", "2",
                "--dir", mine.toString());
        assertThat(refused.exit()).isNotZero();
        assertThat(refused.out()).contains("demo: FAILED: --dir " + mine).contains("precious.txt");
        try (var left = Files.list(mine)) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactly("precious.txt");
        }

        Path own = base.resolve("own");
        for (int run = 1; run <= 2; run++) {
            ClusterCommandTest.Run demo = ClusterCommandTest.gyro("demo", "--duration", "1", "--sessions", "2",
                    "--instances", "2", "--dir", own.toString());
            assertThat(demo.out()).as("run %d", run).contains("demo: OK");
        }
    }

    @Test
    void benchRefusesAnOutFolderWithTheUsersFiles() throws Exception {
        Path mine = Files.createDirectories(base.resolve("results"));
        Files.writeString(mine.resolve("results.json"), "{\"mine\": true}");
        ClusterCommandTest.Run bench = ClusterCommandTest.gyro("bench", "local-ratio", "--quick", "--out", mine.toString());
        assertThat(bench.exit()).isEqualTo(2);
        assertThat(bench.out()).contains("bench: FAILED: --out " + mine).contains("results.json");
        assertThat(mine.resolve("results.json")).hasContent("{\"mine\": true}");
    }

    @Test
    void clusterStartRefusesAFolderWithTheUsersFiles() throws Exception {
        Path mine = Files.createDirectories(base.resolve("cluster"));
        Files.writeString(mine.resolve("notes.md"), "keep");
        CliPolishTest.Run start = CliPolishTest.run("cluster", "start", "--backend", "sqlite", "--dir", mine.toString());
        assertThat(start.exit()).isEqualTo(2);
        assertThat(start.err()).contains("--dir " + mine).contains("notes.md");
        try (var left = Files.list(mine)) {
            assertThat(left.map(p -> p.getFileName().toString())).containsExactly("notes.md");
        }
    }
}
