package dev.gyro.runtime;

import dev.gyro.app.Application;
import dev.gyro.app.Classification;
import dev.gyro.app.Kind;
import dev.gyro.app.Transaction;
import dev.gyro.app.TransactionCatalog;
import dev.gyro.runtime.db.CapturePolicy;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Everything the runtime can check about an application before it serves a request: its transactions follow the
 * contract of {@link Transaction} (one {@code run(TxContext, ...)} with supported parameter types and names), its
 * classification names exactly its transactions with parameters they have, and the SQL constants of every transaction
 * that may run as a global request are statements write capture accepts. Each failure is one line naming the class
 * and the reason.
 */
public final class ApplicationCheck {

    /** First words of SQL text, to tell a statement constant from other string constants. */
    private static final Set<String> SQL_WORDS = Set.of("SELECT", "INSERT", "UPDATE", "DELETE", "REPLACE", "WITH",
            "MERGE", "UPSERT", "CREATE", "DROP", "ALTER", "TRUNCATE", "CALL", "EXEC", "EXECUTE", "COMMIT", "ROLLBACK",
            "BEGIN", "SET", "PRAGMA", "LOCK", "GRANT", "VALUES");

    private ApplicationCheck() {}

    /** @throws IllegalArgumentException one line: the class and what is wrong */
    public static void check(Application app) {
        String what = "application '" + app.name() + "' (" + app.getClass().getName() + ")";
        TransactionCatalog catalog;
        Classification classification;
        try {
            catalog = app.catalog();
            classification = app.classification();
            classification.validateAgainst(catalog);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(what + ": " + e.getMessage(), e);
        }
        for (Transaction t : app.transactions()) {
            Kind kind = classification.rule(Transaction.nameOf(t.getClass())).kind();
            if (kind == Kind.LOCAL) continue; // never captured: it runs as a plain DBMS transaction
            for (Field f : t.getClass().getDeclaredFields()) {
                Optional<String> sql = sqlConstant(f);
                if (sql.isEmpty()) continue;
                Optional<String> refusal = CapturePolicy.refusal(sql.get());
                if (refusal.isPresent())
                    throw new IllegalArgumentException(what + ": " + t.getClass().getName() + "." + f.getName()
                            + " (transaction " + Transaction.nameOf(t.getClass()) + ", " + kind.label() + "): "
                            + refusal.get());
            }
        }
    }

    private static Optional<String> sqlConstant(Field f) {
        int m = f.getModifiers();
        if (!Modifier.isStatic(m) || !Modifier.isFinal(m) || f.getType() != String.class) return Optional.empty();
        try {
            f.setAccessible(true);
            String text = (String) f.get(null);
            if (text == null) return Optional.empty();
            String first = text.strip().split("[\\s(]", 2)[0].toUpperCase(Locale.ROOT);
            return SQL_WORDS.contains(first) ? Optional.of(text) : Optional.empty();
        } catch (ReflectiveOperationException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
