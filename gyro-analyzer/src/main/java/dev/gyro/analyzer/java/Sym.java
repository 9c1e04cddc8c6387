package dev.gyro.analyzer.java;

import dev.gyro.analyzer.model.Value;

import java.util.ArrayList;
import java.util.List;

/**
 * The symbolic value of a Java expression: a scalar {@link Value} (input parameter, constant, free), or
 * a string built by concatenation, as literal pieces and holes holding the values concatenated in.
 */
sealed interface Sym permits Sym.Scalar, Sym.Text, Sym.Alternatives, Sym.Obj, Sym.Array {

    /** At most this many SQL texts are kept for one expression; more become a free value. */
    int MAX_ALTERNATIVES = 8;

    /**
     * One of several strings, when a variable or a conditional expression may hold different SQL texts
     * ({@code sql = cond ? A : B}): each is a statement the transaction may run.
     */
    record Alternatives(List<Text> texts) implements Sym {
        public Alternatives {
            texts = List.copyOf(texts);
        }

        /** The alternatives of several values, or null if one is not text or there are too many. */
        static Sym of(List<Sym> values) {
            List<Text> out = new ArrayList<>();
            for (Sym v : values) {
                if (v instanceof Text t) {
                    if (!out.contains(t)) {
                        out.add(t);
                    }
                } else if (v instanceof Alternatives a) {
                    for (Text t : a.texts()) {
                        if (!out.contains(t)) {
                            out.add(t);
                        }
                    }
                } else {
                    return null;
                }
            }
            if (out.size() > MAX_ALTERNATIVES) {
                return null;
            }
            return out.size() == 1 ? out.get(0) : new Alternatives(out);
        }

        /** Each alternative concatenated with {@code other} (or {@code other} with each, if {@code prefix}). */
        Sym concat(Sym other, String javaOfOther) {
            List<Sym> out = new ArrayList<>();
            List<Text> rights = other instanceof Alternatives a ? a.texts() : null;
            for (Text t : texts) {
                if (rights != null) {
                    for (Text r : rights) {
                        out.add(t.concat(r, javaOfOther));
                    }
                } else {
                    out.add(t.concat(other, javaOfOther));
                }
            }
            Sym result = of(out);
            return result != null ? result : free("more than " + MAX_ALTERNATIVES + " possible SQL texts");
        }
    }

    record Scalar(Value value) implements Sym {
    }

    /**
     * An object of a class of the sources made by {@code new T(...)}: the values its constructor gave the fields that
     * cannot change afterwards (a wrapper holding an SQL text, say).
     */
    record Obj(SourceIndex.TypeInfo type, java.util.Map<String, Sym> fields) implements Sym {
    }

    /**
     * The elements a varargs parameter received when the call passed them one by one ({@code new SQLStmt(sql)}
     * passes none): a loop over an array known to be empty does not run.
     */
    record Array(List<Sym> elements) implements Sym {
        public Array {
            elements = List.copyOf(elements);
        }
    }

    record Text(List<Piece> pieces) implements Sym {
        public Text {
            pieces = List.copyOf(pieces);
        }

        static Text literal(String s) {
            return new Text(List.of(new Lit(s)));
        }

        boolean isLiteral() {
            return pieces.size() == 1 && pieces.get(0) instanceof Lit;
        }

        String literalText() {
            return ((Lit) pieces.get(0)).text();
        }

        Text concat(Sym other, String javaOfOther) {
            List<Piece> out = new ArrayList<>(pieces);
            if (other instanceof Text t) {
                out.addAll(t.pieces);
            } else {
                out.add(new Hole(asValue(other), javaOfOther));
            }
            return new Text(merge(out));
        }

        static Text prefix(Value value, String java, Text rest) {
            List<Piece> out = new ArrayList<>();
            out.add(new Hole(value, java));
            out.addAll(rest.pieces);
            return new Text(merge(out));
        }

        private static List<Piece> merge(List<Piece> pieces) {
            List<Piece> out = new ArrayList<>();
            for (Piece p : pieces) {
                if (p instanceof Lit l && !out.isEmpty() && out.get(out.size() - 1) instanceof Lit prev) {
                    out.set(out.size() - 1, new Lit(prev.text() + l.text()));
                } else {
                    out.add(p);
                }
            }
            return out;
        }
    }

    sealed interface Piece permits Lit, Hole {
    }

    record Lit(String text) implements Piece {
    }

    /** A value concatenated into SQL text; {@code java} is its source expression, for messages. */
    record Hole(Value value, String java) implements Piece {
    }

    static Sym free(String why) {
        return new Scalar(new Value.Free(why));
    }

    /** The scalar a symbolic value stands for when bound to a placeholder. */
    static Value asValue(Sym s) {
        if (s instanceof Scalar scalar) {
            return scalar.value();
        }
        if (s instanceof Alternatives) {
            return new Value.Free("one of several strings");
        }
        if (s instanceof Obj o) {
            return new Value.Free("an object of " + o.type().name());
        }
        if (s instanceof Array) {
            return new Value.Free("an array");
        }
        Text t = (Text) s;
        if (t.isLiteral()) {
            return Value.Constant.string(t.literalText());
        }
        return new Value.Free("string built at run time");
    }
}
