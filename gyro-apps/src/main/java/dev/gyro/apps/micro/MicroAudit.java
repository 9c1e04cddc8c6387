package dev.gyro.apps.micro;

import dev.gyro.app.Audit;
import dev.gyro.protocol.PartitionMap;
import dev.gyro.protocol.Value;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/** The micro-benchmark's conditions: every operation was counted exactly twice, once in a row and once in a total. */
final class MicroAudit implements Audit {

    static final String SHARED_TOTALS = "SELECT (SELECT MS_VALUE FROM MICRO_SHARED WHERE MS_KEY = 0), "
            + "(SELECT COALESCE(SUM(MS_VALUE), 0) FROM MICRO_SHARED WHERE MS_KEY > 0), "
            + "(SELECT COUNT(*) FROM MICRO_SHARED WHERE MS_VALUE < 0)";
    static final String PARTITION_TOTALS = "SELECT P.MP_PARTITION, P.MP_OPS, "
            + "(SELECT COALESCE(SUM(R.MR_VALUE), 0) FROM MICRO_ROWS R WHERE R.MR_PARTITION = P.MP_PARTITION) "
            + "FROM MICRO_PARTITION P ORDER BY P.MP_PARTITION";
    static final String ORPHAN_ROWS = "SELECT R.MR_PARTITION, R.MR_KEY FROM MICRO_ROWS R WHERE NOT EXISTS "
            + "(SELECT 1 FROM MICRO_PARTITION P WHERE P.MP_PARTITION = R.MR_PARTITION) ORDER BY 1, 2";

    @Override
    public List<String> conditions() {
        return List.of("MICRO_SHARED: row 0 equals the sum of all other rows (every global operation counted in both)",
                "MICRO_PARTITION: each partition's count equals the sum of its MICRO_ROWS, at the instance that owns it",
                "no MICRO_ROWS row without its partition's count");
    }

    @Override
    public List<String> check(List<Connection> instances, PartitionMap map) throws SQLException {
        List<String> violations = new ArrayList<>();
        for (int i = 0; i < instances.size(); i++) {
            try (Statement s = instances.get(i).createStatement(); ResultSet rs = s.executeQuery(SHARED_TOTALS)) {
                rs.next();
                if (rs.getLong(1) != rs.getLong(2))
                    violations.add("instance " + i + ": MICRO_SHARED row 0 says " + rs.getLong(1)
                            + " global operations, the other rows add up to " + rs.getLong(2));
                if (rs.getLong(3) > 0) violations.add("instance " + i + ": " + rs.getLong(3) + " negative MICRO_SHARED rows");
            }
            try (Statement s = instances.get(i).createStatement(); ResultSet rs = s.executeQuery(PARTITION_TOTALS)) {
                while (rs.next()) {
                    long partition = rs.getLong(1);
                    if (map.instanceOf(new Value.Int(partition)) != i) continue; // another instance owns it
                    if (rs.getLong(2) != rs.getLong(3))
                        violations.add("instance " + i + ": partition " + partition + " counts " + rs.getLong(2)
                                + " operations in MICRO_PARTITION but its MICRO_ROWS add up to " + rs.getLong(3));
                }
            }
            try (Statement s = instances.get(i).createStatement(); ResultSet rs = s.executeQuery(ORPHAN_ROWS)) {
                if (rs.next())
                    violations.add("instance " + i + ": MICRO_ROWS (" + rs.getLong(1) + ", " + rs.getLong(2)
                            + ") has no MICRO_PARTITION count");
            }
        }
        return violations;
    }
}
