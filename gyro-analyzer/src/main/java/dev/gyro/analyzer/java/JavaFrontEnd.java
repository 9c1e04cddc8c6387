package dev.gyro.analyzer.java;

import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.body.EnumDeclaration;
import com.github.javaparser.ast.body.MethodDeclaration;
import com.github.javaparser.ast.body.Parameter;
import com.github.javaparser.ast.expr.BinaryExpr;
import com.github.javaparser.ast.expr.Expression;
import com.github.javaparser.ast.expr.StringLiteralExpr;
import com.github.javaparser.ast.expr.TextBlockLiteralExpr;
import com.github.javaparser.ast.type.Type;
import dev.gyro.analyzer.java.SourceIndex.TypeInfo;
import dev.gyro.analyzer.model.Diagnostic;
import dev.gyro.analyzer.model.SourceRef;
import dev.gyro.analyzer.model.Value;
import dev.gyro.analyzer.sql.SqlSite;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Finds the transactions of an application in its Java source, with their SQL statements, through two
 * front-ends:
 *
 * <ol>
 *   <li><b>Gyro application model.</b> A class implementing {@code dev.gyro.app.Transaction} whose public
 *       method {@code run(TxContext ctx, ...)} runs the transaction. Its name is the class's simple name
 *       with the first letter lower-cased ({@code AddItem} gives {@code addItem}); its input parameters are
 *       {@code run}'s parameters after {@code ctx}.</li>
 *   <li><b>Unmodified legacy JDBC code</b>, as the paper analyzed its benchmarks: each public method that
 *       opens a connection ({@code getConnection()}) or receives a {@code java.sql.Connection}, and runs
 *       SQL, is a transaction named after the method; its input parameters are its parameters other than
 *       the connection, plus the fields of parameter objects it uses. In servlet-style code, a
 *       {@code doGet}/{@code doPost}/{@code service} method that runs SQL is a transaction named after its
 *       class, whose input parameters are the request parameters it reads with {@code getParameter("name")}.
 *       A method that another transaction calls is a helper of that transaction, not a transaction of its
 *       own (unless the two call each other).</li>
 * </ol>
 */
public final class JavaFrontEnd {

    /** A transaction found in the sources, with its SQL statements. */
    public record DiscoveredTransaction(String name, String origin, String className, SourceRef source,
                                        List<String> parameters, List<SqlSite> sites, List<String> notes,
                                        Map<String, Integer> valueCounts, dev.gyro.app.Classification.Method method) {
        public DiscoveredTransaction {
            parameters = List.copyOf(parameters);
            sites = List.copyOf(sites);
            notes = List.copyOf(notes);
            valueCounts = Map.copyOf(valueCounts);
        }
    }

    /** SQL text that may declare tables (CREATE TABLE in a string constant or a .sql file). */
    public record SchemaText(String sql, SourceRef source) {
    }

    public record Result(List<DiscoveredTransaction> transactions, List<SchemaText> schemaTexts,
                         List<Diagnostic> diagnostics) {
    }

    /**
     * Which front-end finds the transactions. {@link #AUTO} uses the Gyro application model when the sources
     * declare at least one Gyro transaction class (then methods that merely receive a Connection, such as an
     * application's schema creation or data loading, are not requests), and the legacy front-end otherwise.
     */
    public enum Mode { AUTO, GYRO, LEGACY }

    private static final Set<String> SERVLET_ENTRIES = Set.of("doGet", "doPost", "doPut", "doDelete", "service");
    private static final Set<String> SERVLET_TYPES = Set.of("HttpServletRequest", "ServletRequest");
    private static final Set<String> CONNECTION_FIELDS = Set.of("Connection", "PreparedStatement", "CallableStatement",
            "Statement");
    private static final Set<String> NOT_INPUT = Set.of("Connection", "TxContext", "HttpServletRequest",
            "HttpServletResponse", "ServletRequest", "ServletResponse", "DataSource", "PrintWriter");
    private static final Set<String> SCALARS = Set.of("String", "Integer", "Long", "Short", "Byte", "Double",
            "Float", "Boolean", "Character", "BigDecimal", "BigInteger", "UUID", "CharSequence", "Date",
            "Timestamp", "LocalDate", "LocalDateTime", "Instant", "OffsetDateTime");

    enum Kind {
        GYRO("Gyro transaction class"), SERVLET("servlet entry method"), OPENS("method opening a connection"),
        FIELD("method using a connection or statement held in a field"), RECEIVES("method receiving a Connection");

        final String text;

        Kind(String text) {
            this.text = text;
        }
    }

    record Candidate(Kind kind, MethodDeclaration method, TypeInfo owner, Interpreter.Walk walk,
                             List<String> declaredInputs) {
    }

    private JavaFrontEnd() {
    }

    public static Result analyze(SourceIndex index) {
        return analyze(index, Mode.AUTO);
    }

    public static Result analyze(SourceIndex index, Mode mode) {
        return analyze(index, mode, ReplacedSql.DECLARED, Quoting.AUTO);
    }

    public static Result analyze(SourceIndex index, Mode mode, ReplacedSql replacedSql, Quoting quoting) {
        List<Diagnostic> diagnostics = new ArrayList<>();
        Interpreter interpreter = new Interpreter(index, replacedSql, quoting);
        List<Candidate> candidates = new ArrayList<>();
        for (TypeInfo type : index.allTypes()) {
            boolean gyro = index.extendsOrImplements(type, "Transaction");
            boolean foundRun = false;
            for (MethodDeclaration m : index.methods(type)) {
                if (m.getBody().isEmpty()) {
                    continue;
                }
                Kind kind = null;
                if (gyro && m.getNameAsString().equals("run") && m.isPublic() && !m.getParameters().isEmpty()
                        && SourceIndex.simpleName(m.getParameter(0).getType()).equals("TxContext")) {
                    kind = Kind.GYRO;
                    foundRun = true;
                } else if (gyro) {
                    continue;
                } else if (SERVLET_ENTRIES.contains(m.getNameAsString()) && hasParameterOf(m, SERVLET_TYPES)) {
                    kind = Kind.SERVLET;
                } else if (m.isPublic() && hasParameterOf(m, Set.of("Connection"))) {
                    kind = Kind.RECEIVES;
                } else if (m.isPublic() && interpreter.opensConnection(m, type)) {
                    kind = Kind.OPENS;
                } else if (m.isPublic() && !m.isStatic() && holdsConnection(type, index)) {
                    kind = Kind.FIELD;
                }
                if (kind == null || kind != Kind.GYRO && !interpreter.runsSql(m)) {
                    continue;
                }
                if (kind != Kind.GYRO && programEntry(m)) {
                    // The program, not one of its requests: run as one, the whole program would be one request.
                    // What it runs before the first call (schema, loading) reaches every instance; a write it makes
                    // while Gyro serves is refused at run time (docs/decisions/34-attaching.md), so its SQL conflicts
                    // with no request.
                    diagnostics.add(Diagnostic.warning(new SourceRef(type.file(), SourceIndex.line(m)), type.name()
                            + ".main is the program's entry point, not a transaction: what it runs before the first"
                            + " call goes to every instance, and a write of its own while Gyro serves is refused"));
                    continue;
                }
                try {
                    candidates.add(walk(kind, m, type, index, interpreter));
                } catch (RuntimeException | StackOverflowError e) {
                    // never crash on odd input: such a transaction may access anything
                    SourceRef at = new SourceRef(type.file(), SourceIndex.line(m));
                    diagnostics.add(Diagnostic.error(at, "cannot analyze " + type.name() + "." + m.getNameAsString()
                            + " (" + e + "): it is taken to read and write any row of any table"));
                    Interpreter.Walk walk = new Interpreter.Walk();
                    walk.visited.add(m);
                    walk.sites.add(new SqlSite(null, "the analysis of this method failed", Map.of(), Map.of(),
                            SqlSite.ExecutionHint.UNKNOWN, at));
                    candidates.add(new Candidate(kind, m, type, walk, List.of()));
                }
            }
            if (gyro && !foundRun && type.declaration.isClassOrInterfaceDeclaration()
                    && !type.declaration.asClassOrInterfaceDeclaration().isInterface()
                    && !type.declaration.asClassOrInterfaceDeclaration().isAbstract()) {
                diagnostics.add(Diagnostic.warning(new SourceRef(type.file(), SourceIndex.line(type.declaration)),
                        "class " + type.name() + " implements Transaction but has no public run(TxContext ctx, ...)"
                                + " method: not analyzed"));
            }
        }

        boolean gyroModel = mode == Mode.GYRO
                || mode == Mode.AUTO && candidates.stream().anyMatch(c -> c.kind() == Kind.GYRO);
        candidates.removeIf(c -> gyroModel != (c.kind() == Kind.GYRO));

        // A method receiving the caller's Connection that another candidate calls runs inside that caller's
        // request: it is a helper. A public entry point that gets its own connection (or uses the object's)
        // stays a transaction even when another entry point also calls it: requests may run it directly. So does
        // an overload that its sibling calls (run(c, item, nickname) finding the user and calling run(c, item,
        // userId)): overloads of one entry point are alternative ways into one operation. And so does a method that
        // code outside every candidate also calls on its own (a kit's worker running it as one transaction type, and
        // inside another method for another): there it is a request of its own; inside the other, part of that one.
        List<Candidate> transactions = new ArrayList<>();
        for (Candidate c : candidates) {
            boolean helper = false;
            for (Candidate d : candidates) {
                boolean sibling = d.owner() == c.owner() && d.method().getNameAsString().equals(c.method().getNameAsString());
                if (d != c && !sibling && d.walk().visited.contains(c.method()) && !c.walk().visited.contains(d.method())) {
                    helper = (c.kind() == Kind.RECEIVES || c.kind() == Kind.SERVLET)
                            && !calledOutside(c.method(), candidates, index);
                    break;
                }
            }
            if (!helper && (c.kind() == Kind.GYRO || !c.walk().sites.isEmpty())) {
                transactions.add(c);
            }
        }
        if (!gyroModel) {
            Unclassified.warn(index, interpreter, candidates, diagnostics);
        }

        interpreter.replacedTexts.forEach((at, message) -> diagnostics.add(Diagnostic.warning(at, message)));
        List<DiscoveredTransaction> out = name(transactions, diagnostics, index);
        return new Result(out, schemaTexts(index, diagnostics), diagnostics);
    }

    /**
     * Whether a method of the sources that no candidate's walk reaches calls {@code m} (by name and number of
     * arguments) directly.
     */
    private static boolean calledOutside(MethodDeclaration m, List<Candidate> candidates, SourceIndex index) {
        String name = m.getNameAsString();
        int arity = m.getParameters().size();
        for (CompilationUnit unit : index.units().values()) {
            for (MethodDeclaration caller : unit.findAll(MethodDeclaration.class)) {
                if (caller == m || candidates.stream().anyMatch(d -> d.walk().visited.contains(caller))) continue;
                boolean calls = caller.findAll(com.github.javaparser.ast.expr.MethodCallExpr.class).stream()
                        .anyMatch(call -> call.getNameAsString().equals(name) && call.getArguments().size() == arity);
                if (calls) return true;
            }
        }
        return false;
    }

    /** {@code public static void main(String[])}: where a Java program starts. */
    static boolean programEntry(MethodDeclaration m) {
        return m.isPublic() && m.isStatic() && m.getNameAsString().equals("main") && m.getType().isVoidType()
                && m.getParameters().size() == 1
                && m.getParameter(0).getType().asString().replace(" ", "").matches("(java\\.lang\\.)?String(\\[\\])?")
                && (m.getParameter(0).isVarArgs() || m.getParameter(0).getType().isArrayType());
    }

    /** Whether the type (or a supertype in the sources) keeps a Connection or a statement in a field. */
    private static boolean holdsConnection(TypeInfo type, SourceIndex index) {
        for (TypeInfo t : index.hierarchy(type)) {
            for (com.github.javaparser.ast.body.FieldDeclaration f : t.declaration.getFields()) {
                String fieldType = SourceIndex.simpleName(f.getElementType());
                if (CONNECTION_FIELDS.contains(fieldType)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean hasParameterOf(MethodDeclaration m, Set<String> typeNames) {
        for (Parameter p : m.getParameters()) {
            if (typeNames.contains(SourceIndex.simpleName(p.getType()))) {
                return true;
            }
        }
        return false;
    }

    private static Candidate walk(Kind kind, MethodDeclaration m, TypeInfo owner, SourceIndex index, Interpreter interpreter) {
        Map<String, Sym> args = new LinkedHashMap<>();
        Map<String, TypeInfo> objects = new HashMap<>();
        List<String> inputs = new ArrayList<>();
        for (int i = 0; i < m.getParameters().size(); i++) {
            Parameter p = m.getParameter(i);
            String name = p.getNameAsString();
            String type = SourceIndex.simpleName(p.getType());
            if (kind == Kind.GYRO && i == 0) {
                args.put(name, Sym.free("transaction context " + name));
                continue;
            }
            if (NOT_INPUT.contains(type)) {
                args.put(name, Sym.free(type + " " + name));
                continue;
            }
            args.put(name, new Sym.Scalar(new Value.Param(name)));
            List<TypeInfo> sourceTypes = index.typesNamed(type);
            boolean sourceObject = !sourceTypes.isEmpty() && !(sourceTypes.get(0).declaration instanceof EnumDeclaration);
            if (sourceObject) {
                objects.put(name, sourceTypes.get(0));
            }
            if (kind == Kind.GYRO || isScalar(p.getType(), index)) {
                inputs.add(name);
            }
        }
        Interpreter.Walk walk = interpreter.walk(m, owner, args, objects);
        return new Candidate(kind, m, owner, walk, inputs);
    }

    private static boolean isScalar(Type type, SourceIndex index) {
        if (type.isPrimitiveType()) {
            return true;
        }
        String name = SourceIndex.simpleName(type);
        if (SCALARS.contains(name)) {
            return true;
        }
        List<TypeInfo> source = index.typesNamed(name);
        return !source.isEmpty() && source.get(0).declaration instanceof EnumDeclaration;
    }

    /**
     * How many distinct values an input can take, where its Java type says: a boolean 2, a byte 256, an
     * enum of the sources its number of constants (the partitioning objective: a key with fewer values
     * than instances cannot spread its load over all of them).
     */
    private static Map<String, Integer> valueCounts(MethodDeclaration m, SourceIndex index) {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (Parameter p : m.getParameters()) {
            String type = SourceIndex.simpleName(p.getType());
            Integer count = switch (type) {
                case "boolean", "Boolean" -> 2;
                case "byte", "Byte" -> 256;
                default -> index.typesNamed(type).stream().filter(t -> t.declaration instanceof EnumDeclaration)
                        .map(t -> ((EnumDeclaration) t.declaration).getEntries().size()).findFirst().orElse(null);
            };
            if (count != null) {
                out.put(p.getNameAsString(), count);
            }
        }
        return out;
    }

    private static List<DiscoveredTransaction> name(List<Candidate> transactions, List<Diagnostic> diagnostics,
                                                    SourceIndex index) {
        Map<TypeInfo, Integer> servletsPerClass = new HashMap<>();
        for (Candidate c : transactions) {
            if (c.kind() == Kind.SERVLET) {
                servletsPerClass.merge(c.owner(), 1, Integer::sum);
            }
        }
        List<String> names = new ArrayList<>();
        for (Candidate c : transactions) {
            String n = switch (c.kind()) {
                case GYRO -> decapitalize(c.owner().name());
                case SERVLET -> servletsPerClass.get(c.owner()) > 1
                        ? decapitalize(c.owner().name()) + capitalize(c.method().getNameAsString())
                        : decapitalize(c.owner().name());
                default -> c.method().getNameAsString();
            };
            names.add(n);
        }
        Map<String, Integer> counts = new HashMap<>();
        names.forEach(n -> counts.merge(n, 1, Integer::sum));
        List<String> unique = new ArrayList<>();
        Set<String> used = new LinkedHashSet<>();
        for (int i = 0; i < transactions.size(); i++) {
            Candidate c = transactions.get(i);
            String n = names.get(i);
            if (counts.get(n) > 1 && c.kind() != Kind.GYRO && c.kind() != Kind.SERVLET) {
                n = c.owner().name() + "." + n;
            }
            String base = n;
            int k = 2;
            while (!used.add(n)) {
                n = base + "_" + k++;
            }
            if (!n.equals(names.get(i)) && counts.get(names.get(i)) > 1) {
                diagnostics.add(Diagnostic.warning(new SourceRef(c.owner().file(), SourceIndex.line(c.method())),
                        "several transactions are named " + names.get(i) + ": this one is reported as " + n));
            }
            unique.add(n);
        }
        List<DiscoveredTransaction> out = new ArrayList<>();
        for (int i = 0; i < transactions.size(); i++) {
            Candidate c = transactions.get(i);
            List<String> parameters = new ArrayList<>(c.declaredInputs());
            for (String p : c.walk().discoveredParameters) {
                if (!parameters.contains(p)) {
                    parameters.add(p);
                }
            }
            String origin = c.kind().text + " " + c.owner().name() + "." + c.method().getNameAsString();
            // An unmodified application's method is named, so that Gyro can attach to it (docs/decisions/34-attaching.md);
            // a transaction of Gyro's API is its class.
            out.add(new DiscoveredTransaction(unique.get(i), origin, c.owner().name(),
                    new SourceRef(c.owner().file(), SourceIndex.line(c.method())), parameters, c.walk().sites,
                    new ArrayList<>(c.walk().notes), valueCounts(c.method(), index),
                    c.kind() == Kind.GYRO ? null : MethodNames.of(c.owner(), c.method(), index)));
        }
        return out;
    }

    static String decapitalize(String s) {
        return s.isEmpty() ? s : Character.toLowerCase(s.charAt(0)) + s.substring(1);
    }

    private static String capitalize(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    // ------------------------------------------------------------------------------------------------
    // Schema declarations: CREATE TABLE (and keys added apart) in string constants and .sql files

    private static List<SchemaText> schemaTexts(SourceIndex index, List<Diagnostic> diagnostics) {
        List<SchemaText> out = new ArrayList<>();
        for (Map.Entry<Path, CompilationUnit> e : index.units().entrySet()) {
            for (Node node : e.getValue().findAll(Expression.class, x -> x instanceof StringLiteralExpr
                    || x instanceof TextBlockLiteralExpr || x instanceof BinaryExpr)) {
                if (node instanceof BinaryExpr b && b.getParentNode().orElse(null) instanceof BinaryExpr) {
                    continue;
                }
                if (!(node instanceof BinaryExpr) && node.getParentNode().orElse(null) instanceof BinaryExpr) {
                    continue;
                }
                String text = literalText((Expression) node, index, 0);
                if (text != null && declaresSchema(text)) {
                    out.add(new SchemaText(text, new SourceRef(e.getKey(), SourceIndex.line(node))));
                }
            }
        }
        for (Path sql : index.sqlFiles()) {
            try {
                out.add(new SchemaText(Files.readString(sql), new SourceRef(sql, 0)));
            } catch (IOException | RuntimeException ex) {
                diagnostics.add(Diagnostic.error(new SourceRef(sql, 0), "cannot read SQL file: " + ex.getMessage()));
            }
        }
        return out;
    }

    /** CREATE TABLE, CREATE UNIQUE INDEX, or ALTER TABLE ... PRIMARY KEY | UNIQUE: text that declares keys. */
    public static boolean declaresSchema(String text) {
        String upper = text.toUpperCase(Locale.ROOT);
        return upper.contains("CREATE TABLE") || upper.contains("CREATE UNIQUE INDEX")
                || upper.contains("ALTER TABLE") && (upper.contains("PRIMARY KEY") || upper.contains("UNIQUE"));
    }

    /**
     * The text of a literal or of a concatenation of literals and final constants of the same class
     * ({@code "CREATE TABLE ITEMS (" + ITEM_COLUMNS + ")"}), else null.
     */
    private static String literalText(Expression e, SourceIndex index, int depth) {
        if (e instanceof StringLiteralExpr s) {
            return s.asString();
        }
        if (e instanceof TextBlockLiteralExpr t) {
            return t.asString();
        }
        if (e instanceof BinaryExpr b && b.getOperator() == BinaryExpr.Operator.PLUS) {
            String l = literalText(b.getLeft(), index, depth);
            String r = literalText(b.getRight(), index, depth);
            return l == null || r == null ? null : l + r;
        }
        if (e instanceof com.github.javaparser.ast.expr.NameExpr name && depth < 4) {
            return index.typeOf(e).flatMap(t -> index.field(t, name.getNameAsString()))
                    .filter(f -> f instanceof com.github.javaparser.ast.body.VariableDeclarator v
                            && v.getParentNode().orElse(null) instanceof com.github.javaparser.ast.body.FieldDeclaration fd
                            && fd.isFinal() && v.getInitializer().isPresent())
                    .map(f -> literalText(((com.github.javaparser.ast.body.VariableDeclarator) f).getInitializer().get(),
                            index, depth + 1))
                    .orElse(null);
        }
        return null;
    }
}
