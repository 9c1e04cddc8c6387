package dev.gyro.app;

import dev.gyro.protocol.Value;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.List;
import java.util.random.RandomGenerator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TransactionCatalogTest {

    public static final class Transfer implements Transaction {
        public String run(TxContext ctx, long from, int amount, String memo) {
            return from + ":" + amount + ":" + memo;
        }
    }

    public static final class NoContext implements Transaction {
        public void run(long x) {}
    }

    public static final class BadType implements Transaction {
        public void run(TxContext ctx, java.util.Date when) {}
    }

    static final TxContext CTX = new TxContext() {
        public Connection connection() { return null; }
        public long now() { return 0; }
        public RandomGenerator random() { return RandomGenerator.getDefault(); }
    };

    @Test
    void findsTransactionsByNameWithTheirParameters() throws Exception {
        TransactionCatalog catalog = new TransactionCatalog(List.of(new Transfer()));
        TransactionCatalog.Entry e = catalog.get("transfer");
        assertThat(e.parameterNames()).containsExactly("from", "amount", "memo");
        assertThat(e.signature()).isEqualTo("transfer(long from, int amount, String memo)");
        assertThat(e.invoke(CTX, List.of(new Value.Int(3), new Value.Int(4), new Value.Text("x")))).isEqualTo("3:4:x");
    }

    @Test
    void wrongRequestsGetExactMessages() {
        TransactionCatalog catalog = new TransactionCatalog(List.of(new Transfer()));
        assertThatThrownBy(() -> catalog.get("pay")).isInstanceOf(BadRequestException.class)
                .hasMessage("unknown transaction 'pay' (known: transfer)");
        TransactionCatalog.Entry e = catalog.get("transfer");
        assertThatThrownBy(() -> e.arguments(CTX, List.of(new Value.Int(1))))
                .hasMessage("transaction transfer(long from, int amount, String memo) takes 3 parameter(s), got 1");
        assertThatThrownBy(() -> e.arguments(CTX, List.of(new Value.Text("a"), new Value.Int(1), new Value.Text("m"))))
                .hasMessageContaining("parameter from of transfer: expected long, got 'a'");
        assertThatThrownBy(() -> e.arguments(CTX, List.of(new Value.Int(1), new Value.Int(1L << 40), new Value.Text("m"))))
                .hasMessageContaining("does not fit in an int");
        assertThatThrownBy(() -> e.arguments(CTX, List.of(new Value.Int(1), Value.NULL, new Value.Text("m"))))
                .hasMessageContaining("amount of transfer must not be NULL");
    }

    @Test
    void malformedTransactionClassesAreRejectedAtStart() {
        assertThatThrownBy(() -> new TransactionCatalog(List.of(new NoContext())))
                .hasMessageContaining("first parameter of run must be a TxContext");
        assertThatThrownBy(() -> new TransactionCatalog(List.of(new BadType())))
                .hasMessageContaining("parameter when has unsupported type Date");
        assertThatThrownBy(() -> new TransactionCatalog(List.of(new Transfer(), new Transfer())))
                .hasMessageContaining("two transactions are named transfer");
    }

    @Test
    void classificationFileIsReadAndValidated() {
        String json = """
                {"transactions": [{"name": "transfer", "class": "local-or-global", "readOnly": false,
                  "partitionBy": ["from", "amount"], "reason": "two keys"}]}""";
        Classification c = Classification.read(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), "t");
        assertThat(c.rule("transfer").kind()).isEqualTo(Kind.LOCAL_OR_GLOBAL);
        c.validateAgainst(new TransactionCatalog(List.of(new Transfer())));

        String wrongParam = json.replace("\"amount\"", "\"to\"");
        Classification bad = Classification.read(new ByteArrayInputStream(wrongParam.getBytes(StandardCharsets.UTF_8)), "t");
        assertThatThrownBy(() -> bad.validateAgainst(new TransactionCatalog(List.of(new Transfer()))))
                .hasMessageContaining("partitioned by 'to', which is not one of its parameters");
        assertThatThrownBy(() -> Classification.read(new ByteArrayInputStream("{".getBytes()), "f.json"))
                .hasMessageContaining("f.json is not valid JSON");
        assertThatThrownBy(() -> Classification.read(new ByteArrayInputStream(
                "{\"transactions\":[{\"name\":\"x\",\"class\":\"sometimes\"}]}".getBytes()), "f.json"))
                .hasMessageContaining("unknown class 'sometimes'");
    }
}
