package dev.gyro.agent;

import dev.gyro.app.Application;
import dev.gyro.app.Classification;
import dev.gyro.app.Transaction;
import dev.gyro.app.TransactionCatalog;

import java.sql.Connection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An unmodified application as Gyro's runtime sees it (docs/decisions/34-attaching.md): one transaction per classified
 * method, named as the classification names it, whose body is the application's own thread ({@link Handoff}). The
 * application creates and loads its schema itself.
 */
public final class AttachedApplication implements Application {

    private final String name;
    private final Map<String, Transaction> transactions = new LinkedHashMap<>();
    private final Classification classification;

    public AttachedApplication(String name, List<AttachedMethod> methods) {
        this.name = name;
        List<Classification.Rule> rules = new ArrayList<>();
        for (AttachedMethod m : methods) {
            Classification.Rule r = m.rule();
            int keys = m.partitionBy().size();
            transactions.put(r.name(), CallTransactions.forKeys(keys));
            rules.add(new Classification.Rule(r.name(), r.kind(), r.readOnly(), CallTransactions.keyNames(keys),
                    r.reason()));
        }
        this.classification = new Classification(rules);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public List<Transaction> transactions() {
        return List.copyOf(transactions.values());
    }

    @Override
    public TransactionCatalog catalog() {
        return new TransactionCatalog(transactions);
    }

    /** The application creates its own schema, on every instance (docs/decisions/34-attaching.md). */
    @Override
    public void createSchema(Connection c) {}

    @Override
    public Classification classification() {
        return classification;
    }

    @Override
    public List<String> replicatedTables() {
        return List.of();
    }
}
