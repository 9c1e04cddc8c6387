package dev.gyro.analyzer;

import dev.gyro.app.Kind;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static dev.gyro.analyzer.Fixtures.classification;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Local-or-global found automatically, and a partitioning objective that counts how many distinct values a
 * key can take (gyro-analyzer/README.md): a key with four values cannot spread load over eight instances.
 */
class SpreadTest {

    private static AnalysisResult analyze(Path path, int instances, Map<String, Integer> keyValues) {
        return new Analyzer().instances(instances, keyValues).analyze(List.of(path));
    }

    @Test
    void daoAnEnumKeyOfFourValuesIsNotTheHomeKeyOnEightInstances() {
        Path dao = Fixtures.fixture("spread/dao");
        assertThat(transactionValues(analyze(dao, 0, Map.of()), "assign")).containsEntry("region", 4);
        // both keys localize one reader each: local-or-global either way; the home key decides where a global
        // request runs and which key the load is spread by
        AnalysisResult unknown = analyze(dao, 0, Map.of());
        assertThat(classification(unknown, "assign").kind()).isEqualTo(Kind.LOCAL_OR_GLOBAL);
        assertThat(classification(unknown, "assign").partitionBy()).containsExactly("region", "agentId");
        AnalysisResult eight = analyze(dao, 8, Map.of());
        assertThat(classification(eight, "assign").kind()).isEqualTo(Kind.LOCAL_OR_GLOBAL);
        assertThat(classification(eight, "assign").partitionBy()).containsExactly("agentId", "region");
        assertThat(classification(analyze(dao, 4, Map.of()), "assign").partitionBy()).containsExactly("region", "agentId");
        // the readers keep the one key they have: the objective never changes what is local
        assertThat(classification(eight, "regionLoad").partitionBy()).containsExactly("region");
    }

    @Test
    void proceduresValuesGivenForAnInputMoveTheHomeKey() {
        Path procedures = Fixtures.fixture("spread/procedures");
        AnalysisResult plain = analyze(procedures, 8, Map.of());
        assertThat(classification(plain, "Deliver.run").partitionBy()).containsExactly("warehouseId", "orderId");
        AnalysisResult twoWarehouses = analyze(procedures, 8, Map.of("warehouseId", 2));
        assertThat(classification(twoWarehouses, "Deliver.run").kind()).isEqualTo(Kind.LOCAL_OR_GLOBAL);
        assertThat(classification(twoWarehouses, "Deliver.run").partitionBy()).containsExactly("orderId", "warehouseId");
        // a value count given per transaction wins over one given for every input of that name
        AnalysisResult perTransaction = analyze(procedures, 8, Map.of("warehouseId", 2, "Deliver.run.warehouseId", 64));
        assertThat(classification(perTransaction, "Deliver.run").partitionBy()).containsExactly("warehouseId", "orderId");
    }

    private static Map<String, Integer> transactionValues(AnalysisResult r, String name) {
        return Fixtures.transaction(r, name).valueCounts();
    }
}
