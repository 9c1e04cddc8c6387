package dev.gyro.runtime;

import dev.gyro.app.TransactionCatalog;
import dev.gyro.app.TxContext;
import dev.gyro.protocol.Value;

import java.util.List;

/**
 * A request's arguments, converted from its wire values once, where the request was checked before anything ran
 * ({@link RequestRouter}; docs/decisions/10-errors.md), and handed to its first attempt; a later attempt converts
 * them afresh, as the attempt before may have changed them (a {@code byte[]}). One attempt at a time uses it.
 */
final class Arguments {

    /** Nothing converted yet: every attempt converts. */
    static final Object[] NONE = null;

    private Object[] first;

    Arguments(Object[] first) {
        this.first = first;
    }

    /** Runs {@code entry} on {@code values}: on the converted arguments the first time. */
    Object invoke(TransactionCatalog.Entry entry, TxContext ctx, List<Value> values) throws Exception {
        Object[] args = first;
        first = null;
        return args == null ? entry.invoke(ctx, values) : entry.invokeWith(ctx, args);
    }
}
