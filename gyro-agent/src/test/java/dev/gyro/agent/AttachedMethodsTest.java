package dev.gyro.agent;

import dev.gyro.agent.fixtures.Amalgamate;
import dev.gyro.agent.fixtures.OrderService;
import dev.gyro.app.Classification;
import dev.gyro.app.Kind;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A classification that names an unmodified application's own methods, resolved against its classes: arguments in the
 * two styles applications use (plain arguments; request objects with getters, fields, records and arrays), and every
 * way a rule can fail to match, each with its message.
 */
class AttachedMethodsTest {

    private static final String CONNECTION = "java.sql.Connection";
    private static final ClassLoader LOADER = AttachedMethodsTest.class.getClassLoader();

    private static Classification.Rule rule(String name, Kind kind, List<String> by, String cls, String method,
                                            String... parameters) {
        List<Classification.Parameter> ps = new java.util.ArrayList<>();
        for (int i = 0; i < parameters.length; i += 2) ps.add(new Classification.Parameter(parameters[i + 1], parameters[i]));
        return new Classification.Rule(name, kind, false, by, "", new Classification.Method(cls, method, ps));
    }

    private static AttachedMethod one(Classification.Rule rule) {
        return AttachedMethods.resolve(new Classification(List.of(rule)), LOADER).get(0);
    }

    @Test
    void plainArgumentsRouteByTheirValues() {
        AttachedMethod m = one(rule("Amalgamate", Kind.LOCAL_OR_GLOBAL, List.of("custId0", "custId1"),
                Amalgamate.class.getName(), "run", CONNECTION, "conn", "long", "custId0", "long", "custId1"));
        assertThat(m.method().getParameterCount()).isEqualTo(3);
        assertThat(m.partitionValues(new Object[] {null, 7L, 9L})).containsExactly(7L, 9L);
    }

    @Test
    void requestObjectsRouteByAGetterAFieldARecordComponentOrAnArrayElement() {
        String service = OrderService.class.getName();
        AttachedMethod order = one(rule("placeOrder", Kind.LOCAL, List.of("req.customer.id"), service, "placeOrder",
                service + "$OrderRequest", "req"));
        assertThat(order.partitionValues(new Object[] {new OrderService.OrderRequest(42)})).containsExactly(42);

        AttachedMethod lookup = one(rule("lookup", Kind.LOCAL, List.of("l.ids[1]"), service, "lookup",
                service + "$Lookup", "l"));
        assertThat(lookup.partitionValues(new Object[] {new OrderService.Lookup("eu", new long[] {3, 5})}))
                .containsExactly(5L);
        assertThat(one(rule("byRegion", Kind.LOCAL, List.of("l.region"), service, "lookup", service + "$Lookup", "l"))
                .partitionValues(new Object[] {new OrderService.Lookup("eu", new long[0])})).containsExactly("eu");

        assertThatThrownBy(() -> lookup.partitionValues(new Object[] {new OrderService.Lookup("eu", new long[] {3})}))
                .hasMessageContaining("has no partitioning value l.ids[1]");
        assertThatThrownBy(() -> order.partitionValues(new Object[] {null}))
                .hasMessageContaining("has no partitioning value req.customer.id");
    }

    @Test
    void theFileCarriesTheMethodsAndReadsBackTheSame() {
        Classification c = new Classification(List.of(rule("placeOrder", Kind.LOCAL, List.of("req.customer.id"),
                OrderService.class.getName(), "placeOrder", OrderService.class.getName() + "$OrderRequest", "req")));
        Classification back = Classification.read(new ByteArrayInputStream(c.toJson().getBytes(StandardCharsets.UTF_8)),
                "test");
        assertThat(back.rules()).isEqualTo(c.rules());
        assertThat(c.toJson()).contains("\"method\"", "\"parameters\"", "OrderService$OrderRequest");
    }

    @Test
    void everyRuleThatDoesNotMatchTheClassesIsNamedWithWhy() {
        String service = OrderService.class.getName(), bank = Amalgamate.class.getName();
        Classification c = new Classification(List.of(
                rule("gone", Kind.LOCAL, List.of("id"), "com.example.Gone", "run", "long", "id"),
                rule("wrongTypes", Kind.LOCAL, List.of("custId"), bank, "run", CONNECTION, "conn", "int", "custId"),
                rule("noSuchName", Kind.LOCAL, List.of("id"), bank, "execute", "long", "id"),
                rule("notAParameter", Kind.LOCAL, List.of("customerId"), service, "placeOrder",
                        service + "$OrderRequest", "req"),
                rule("noSuchField", Kind.LOCAL, List.of("req.customer.code"), service, "placeOrder",
                        service + "$OrderRequest", "req"),
                rule("notAnArray", Kind.LOCAL, List.of("l.region[0]"), service, "lookup", service + "$Lookup", "l"),
                rule("unroutable", Kind.LOCAL, List.of("ids"), service, "notifyAll", "java.util.List", "ids"),
                rule("objectValue", Kind.LOCAL, List.of("req.customer"), service, "placeOrder",
                        service + "$OrderRequest", "req"),
                new Classification.Rule("apiStyle", Kind.GLOBAL, false, List.of(), "")));
        assertThatThrownBy(() -> AttachedMethods.resolve(c, LOADER))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("transaction gone: class com.example.Gone is not on the application's class path")
                .hasMessageContaining("transaction wrongTypes: " + bank + " has no method run(java.sql.Connection, int);"
                        + " its methods of that name take (java.sql.Connection, java.lang.String),"
                        + " (java.sql.Connection, long, long)")
                .hasMessageContaining("transaction noSuchName: " + bank + " has no method execute(long), nor any method"
                        + " of that name")
                .hasMessageContaining("transaction notAParameter is partitioned by 'customerId', which does not"
                        + " resolve in " + service + ".placeOrder(" + service + "$OrderRequest req): 'customerId' is"
                        + " not one of its parameters [req]")
                .hasMessageContaining("req.customer (of type " + service + "$Customer) has no field or getter 'code'")
                .hasMessageContaining("l.region is not an array (its type is java.lang.String)")
                .hasMessageContaining("transaction unroutable is partitioned by 'ids', which does not resolve in "
                        + service + ".notifyAll(java.util.List ids): its value's type java.util.List cannot be routed")
                .hasMessageContaining("its value's type " + service + "$Customer cannot be routed")
                .hasMessageContaining("transaction apiStyle names no method of the application");
    }

    @Test
    void aMalformedPathOrAWrongCountIsRefused() {
        String bank = Amalgamate.class.getName();
        assertThatThrownBy(() -> one(rule("a", Kind.LOCAL, List.of("custId0..x"), bank, "run", CONNECTION, "conn",
                "long", "custId0", "long", "custId1")))
                .hasMessageContaining("'custId0..x' is not a path");
        assertThatThrownBy(() -> one(rule("b", Kind.LOCAL, List.of("custId0", "custId1"), bank, "run", CONNECTION,
                "conn", "long", "custId0", "long", "custId1")))
                .hasMessageContaining("transaction b is local and may have at most one partitioning parameter");
    }
}
