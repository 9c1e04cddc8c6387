package dev.gyro.analyzer.java;

import com.github.javaparser.Position;
import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.body.CallableDeclaration;
import com.github.javaparser.ast.body.ConstructorDeclaration;
import com.github.javaparser.ast.body.MethodDeclaration;
import com.github.javaparser.ast.stmt.BlockStmt;
import com.github.javaparser.ast.body.Parameter;
import com.github.javaparser.ast.body.VariableDeclarator;
import com.github.javaparser.ast.expr.ArrayAccessExpr;
import com.github.javaparser.ast.expr.AssignExpr;
import com.github.javaparser.ast.expr.BinaryExpr;
import com.github.javaparser.ast.expr.BooleanLiteralExpr;
import com.github.javaparser.ast.expr.CastExpr;
import com.github.javaparser.ast.expr.CharLiteralExpr;
import com.github.javaparser.ast.expr.ConditionalExpr;
import com.github.javaparser.ast.expr.DoubleLiteralExpr;
import com.github.javaparser.ast.expr.EnclosedExpr;
import com.github.javaparser.ast.expr.Expression;
import com.github.javaparser.ast.expr.FieldAccessExpr;
import com.github.javaparser.ast.expr.IntegerLiteralExpr;
import com.github.javaparser.ast.expr.LambdaExpr;
import com.github.javaparser.ast.expr.LongLiteralExpr;
import com.github.javaparser.ast.expr.MethodCallExpr;
import com.github.javaparser.ast.expr.NameExpr;
import com.github.javaparser.ast.expr.NullLiteralExpr;
import com.github.javaparser.ast.expr.ObjectCreationExpr;
import com.github.javaparser.ast.expr.StringLiteralExpr;
import com.github.javaparser.ast.expr.SuperExpr;
import com.github.javaparser.ast.expr.TextBlockLiteralExpr;
import com.github.javaparser.ast.expr.ThisExpr;
import com.github.javaparser.ast.expr.TypePatternExpr;
import com.github.javaparser.ast.expr.UnaryExpr;
import com.github.javaparser.ast.expr.VariableDeclarationExpr;
import com.github.javaparser.ast.stmt.ForEachStmt;
import com.github.javaparser.ast.stmt.ReturnStmt;
import com.github.javaparser.ast.type.Type;
import dev.gyro.analyzer.java.SourceIndex.TypeInfo;
import dev.gyro.analyzer.model.SourceRef;
import dev.gyro.analyzer.model.Value;
import dev.gyro.analyzer.sql.SqlAccessExtractor;
import dev.gyro.analyzer.sql.SqlSite;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Walks a transaction's code, without running it, to find its SQL statements and what is bound to their
 * placeholders (paper, Section VI: "We used Java parser to extract SQL queries and to map input
 * parameters to the used query parameters").
 *
 * <ul>
 *   <li>SQL comes from the first argument of {@code prepareStatement}, {@code prepareCall},
 *       {@code executeQuery}, {@code executeUpdate}, {@code execute} and {@code addBatch}: string literals,
 *       text blocks, {@code static final} constants (of any analyzed class), local variables, and
 *       concatenations of these; a value concatenated into the text becomes a bound placeholder.</li>
 *   <li>Placeholder {@code ?} number i of a prepared statement held in variable {@code ps} is bound by the
 *       {@code ps.setXxx(i, expr)} calls that follow the {@code prepareStatement} and precede the next
 *       assignment of {@code ps}.</li>
 *   <li>An expression is traced back through local variables with one value, casts, parsing and boxing
 *       calls ({@code Integer.parseInt}, {@code Long.valueOf}...), fields and getters of parameter objects
 *       declared in the sources, {@code request.getParameter("name")}, and the arguments of the calls that
 *       led here. Anything else (a ResultSet read, a random number, a loop variable, arithmetic, a
 *       variable with several values) is a free value.</li>
 *   <li>Calls into methods of the analyzed sources that (transitively) run SQL are followed with their
 *       arguments, so helpers' statements count for the caller's transaction. A recursive call, or one
 *       deeper than {@value #MAX_DEPTH}, is analyzed once with all its parameters free.</li>
 *   <li>Texts grown by StringBuilder appends or {@code +=} ({@link Appends}), wrapper objects whose constructor
 *       fixes their fields, values returned by methods of the sources, statements a helper prepares and returns,
 *       and placeholders bound by a loop over varargs ({@link LoopBinding}) are followed as gyro-analyzer/README.md
 *       says ("SQL text"); what is not is free or computed.</li>
 * </ul>
 */
final class Interpreter {
    static final int MAX_DEPTH = 12;

    private static final Set<String> PREPARE = Set.of("prepareStatement", "prepareCall");
    private static final Set<String> EXECUTE_SQL = Set.of("executeQuery", "executeUpdate", "execute",
            "executeLargeUpdate", "addBatch");
    private static final Set<String> EXECUTE_PREPARED = Set.of("executeQuery", "executeUpdate", "execute",
            "executeLargeUpdate", "executeBatch", "executeLargeBatch", "addBatch");
    private static final Pattern SETTER = Pattern.compile("set[A-Z][A-Za-z]*");
    private static final Set<String> BOXES = Set.of("Integer", "Long", "Short", "Byte", "Double", "Float",
            "String", "BigDecimal", "BigInteger", "Boolean", "Objects", "Math", "UUID");
    private static final Set<String> CONVERSIONS = Set.of("parseInt", "parseLong", "parseShort", "parseByte",
            "parseDouble", "parseFloat", "parseBoolean", "valueOf", "requireNonNull", "toIntExact", "fromString",
            "parseUnsignedInt", "parseUnsignedLong");
    private static final Set<String> UNBOXING = Set.of("intValue", "longValue", "shortValue", "byteValue",
            "doubleValue", "floatValue", "booleanValue", "toString");
    private static final Pattern RESULT_SET_GETTER = Pattern.compile(
            "get(Int|Long|String|Double|Float|Short|Byte|Boolean|BigDecimal|Object|Timestamp|Date|Time|NString|Bytes)");
    private static final Set<String> RANDOM = Set.of("nextInt", "nextLong", "nextDouble", "nextFloat",
            "nextGaussian", "nextBoolean", "random", "randomUUID", "current");

    private final SourceIndex index;
    private final Map<CallableDeclaration<?>, LocalDefs> defsCache = new IdentityHashMap<>();
    private final Map<CallableDeclaration<?>, Boolean> runsSql = new IdentityHashMap<>();

    private final Replacements replacements;
    private final ReplacedSql replacedSql;
    /** Warnings at the setter calls whose replacements are not analyzed, once each. */
    final Map<SourceRef, String> replacedTexts = new LinkedHashMap<>();

    /** A double quote opens a string literal (MySQL), not a quoted identifier. */
    private final boolean doubleQuotedStrings;

    Interpreter(SourceIndex index) {
        this(index, ReplacedSql.DECLARED, Quoting.ANSI);
    }

    Interpreter(SourceIndex index, ReplacedSql replacedSql, Quoting quoting) {
        this.index = index;
        this.replacements = new Replacements(index);
        this.replacedSql = replacedSql;
        this.doubleQuotedStrings = quoting.resolve(index) == Quoting.MYSQL;
        computeRunsSql();
    }

    /** What a walk from one entry method found. */
    static final class Walk {
        final List<SqlSite> sites = new ArrayList<>();
        final Set<CallableDeclaration<?>> visited = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        final LinkedHashSet<String> discoveredParameters = new LinkedHashSet<>();
        final LinkedHashSet<String> notes = new LinkedHashSet<>();
        final Map<String, TypeInfo> objectParameters = new HashMap<>();
        final Set<CallableDeclaration<?>> summarized = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        final Set<Node> constantsInProgress = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        int holes;
    }

    /** One activation of a method: its arguments (symbolic) and its caller. */
    private final class Frame {
        final CallableDeclaration<?> method;
        final TypeInfo owner;
        final Map<String, Sym> args;
        final Frame caller;
        final int depth;
        final boolean summary;
        final Walk walk;
        final LocalDefs defs;
        final Map<String, Sym> localCache = new HashMap<>();
        final Set<String> evaluating = new HashSet<>();
        /** The object a method of a wrapper runs on, when it is known (its fields' values). */
        final Sym.Obj self;
        /** The elements a varargs parameter received, when the call passed them one by one. */
        final Map<String, List<Value>> arrays = new HashMap<>();
        /** Variables whose value in {@code args} holds here whatever their definitions (one turn of a loop: foldedByLoop). */
        final Set<String> settled = new HashSet<>();

        Frame(CallableDeclaration<?> method, TypeInfo owner, Map<String, Sym> args, Frame caller, boolean summary, Walk walk) {
            this(method, owner, args, caller, summary, walk, null);
        }

        Frame(CallableDeclaration<?> method, TypeInfo owner, Map<String, Sym> args, Frame caller, boolean summary, Walk walk,
              Sym.Obj self) {
            this.self = self;
            this.method = method;
            this.owner = owner;
            this.args = args;
            this.caller = caller;
            this.depth = caller == null ? 0 : caller.depth + 1;
            this.summary = summary;
            this.walk = walk;
            this.defs = method == null ? LocalDefs.EMPTY : defsCache.computeIfAbsent(method, LocalDefs::of);
        }

        boolean onStack(CallableDeclaration<?> m) {
            for (Frame f = this; f != null; f = f.caller) {
                if (f.method == m) {
                    return true;
                }
            }
            return false;
        }

        SourceRef at(Node node) {
            return new SourceRef(owner.file(), SourceIndex.line(node));
        }
    }

    /** Definitions of the local variables of one method body. */
    private static final class LocalDefs {
        static final LocalDefs EMPTY = new LocalDefs();
        final Map<String, List<Expression>> assignments = new HashMap<>();
        final Set<String> opaque = new HashSet<>();
        final Map<String, String> declaredType = new HashMap<>();
        final Set<String> declared = new HashSet<>();
        /** Variables grown by {@code +=}: a String built piece by piece (Appends). */
        final Set<String> appended = new HashSet<>();

        static LocalDefs of(CallableDeclaration<?> method) {
            LocalDefs d = new LocalDefs();
            if (body(method).isEmpty()) {
                return d;
            }
            Node body = body(method).get();
            for (VariableDeclarator v : body.findAll(VariableDeclarator.class)) {
                String name = v.getNameAsString();
                d.declared.add(name);
                String type = SourceIndex.simpleName(v.getType());
                d.declaredType.merge(name, type, (a, b) -> a.equals(b) ? a : "");
                v.getInitializer().ifPresent(init -> d.assignments.computeIfAbsent(name, k -> new ArrayList<>()).add(init));
                Node parent = v.getParentNode().orElse(null);
                if (parent instanceof VariableDeclarationExpr && parent.getParentNode().orElse(null) instanceof ForEachStmt) {
                    d.opaque.add(name); // takes each element of a collection in turn: a loop value
                }
            }
            for (AssignExpr a : body.findAll(AssignExpr.class)) {
                if (a.getTarget() instanceof NameExpr n) {
                    if (a.getOperator() == AssignExpr.Operator.ASSIGN) {
                        d.assignments.computeIfAbsent(n.getNameAsString(), k -> new ArrayList<>()).add(a.getValue());
                    } else {
                        d.opaque.add(n.getNameAsString());
                        if (a.getOperator() == AssignExpr.Operator.PLUS) {
                            d.appended.add(n.getNameAsString());
                        }
                    }
                }
            }
            for (UnaryExpr u : body.findAll(UnaryExpr.class)) {
                if (u.getExpression() instanceof NameExpr n && changes(u)) {
                    d.opaque.add(n.getNameAsString());
                }
            }
            for (Parameter p : body.findAll(Parameter.class)) {
                d.opaque.add(p.getNameAsString()); // lambda and catch parameters
                d.declared.add(p.getNameAsString());
                d.declaredType.merge(p.getNameAsString(), SourceIndex.simpleName(p.getType()), (a, b) -> a.equals(b) ? a : "");
            }
            for (TypePatternExpr p : body.findAll(TypePatternExpr.class)) {
                d.opaque.add(p.getNameAsString());
                d.declared.add(p.getNameAsString());
            }
            return d;
        }
    }

    // ------------------------------------------------------------------------------------------------
    // Which methods can run SQL (coarse, by name and arity: used to decide which calls to follow)

    static Optional<BlockStmt> body(CallableDeclaration<?> c) {
        if (c instanceof MethodDeclaration m) {
            return m.getBody();
        }
        return Optional.of(((ConstructorDeclaration) c).getBody());
    }

    private List<CallableDeclaration<?>> callables(TypeInfo type) {
        List<CallableDeclaration<?>> out = new ArrayList<>(index.methods(type));
        out.addAll(index.constructors(type));
        return out;
    }

    private void computeRunsSql() {
        Map<CallableDeclaration<?>, List<Node>> calls = new IdentityHashMap<>();
        Map<String, List<CallableDeclaration<?>>> byName = new HashMap<>();
        for (TypeInfo type : index.allTypes()) {
            for (CallableDeclaration<?> m : callables(type)) {
                String key = m instanceof ConstructorDeclaration ? "new " + type.name() : m.getNameAsString();
                byName.computeIfAbsent(key, k -> new ArrayList<>()).add(m);
                boolean direct = false;
                List<Node> list = new ArrayList<>();
                if (body(m).isPresent()) {
                    list.addAll(body(m).get().findAll(MethodCallExpr.class));
                    list.addAll(body(m).get().findAll(ObjectCreationExpr.class));
                }
                for (Node node : list) {
                    if (node instanceof MethodCallExpr call) {
                        String n = call.getNameAsString();
                        int argc = call.getArguments().size();
                        if ((PREPARE.contains(n) || EXECUTE_SQL.contains(n)) && argc >= 1
                                || EXECUTE_PREPARED.contains(n) && argc == 0) {
                            direct = true;
                            break;
                        }
                    }
                }
                runsSql.put(m, direct);
                calls.put(m, list);
            }
        }
        boolean changed = true;
        while (changed) {
            changed = false;
            for (Map.Entry<CallableDeclaration<?>, List<Node>> e : calls.entrySet()) {
                if (runsSql.get(e.getKey())) {
                    continue;
                }
                outer:
                for (Node node : e.getValue()) {
                    String key;
                    int argc;
                    if (node instanceof MethodCallExpr call) {
                        key = call.getNameAsString();
                        argc = call.getArguments().size();
                    } else {
                        ObjectCreationExpr create = (ObjectCreationExpr) node;
                        key = "new " + create.getType().getNameAsString();
                        argc = create.getArguments().size();
                    }
                    for (CallableDeclaration<?> callee : byName.getOrDefault(key, List.of())) {
                        if (arityMatches(callee, argc) && runsSql.get(callee)) {
                            runsSql.put(e.getKey(), true);
                            changed = true;
                            break outer;
                        }
                    }
                }
            }
        }
    }

    boolean runsSql(CallableDeclaration<?> m) {
        return runsSql.getOrDefault(m, false);
    }

    /** Whether a method opens a connection itself ({@code getConnection()}, a source method returning one). */
    boolean opensConnection(MethodDeclaration m, TypeInfo owner) {
        if (m.getBody().isEmpty()) {
            return false;
        }
        for (MethodCallExpr call : m.getBody().get().findAll(MethodCallExpr.class)) {
            String n = call.getNameAsString();
            if (n.equals("getConnection")) {
                return true;
            }
            for (TypeInfo t : index.hierarchy(owner)) {
                for (MethodDeclaration callee : index.methods(t)) {
                    if (callee.getNameAsString().equals(n) && SourceIndex.simpleName(callee.getType()).equals("Connection")) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    private static boolean arityMatches(CallableDeclaration<?> m, int args) {
        int n = m.getParameters().size();
        if (n == args) {
            return true;
        }
        return n > 0 && ((Parameter) m.getParameters().get(n - 1)).isVarArgs() && args >= n - 1;
    }

    // ------------------------------------------------------------------------------------------------
    // Walking a transaction

    /** Walks the entry method with the given symbolic arguments. */
    Walk walk(CallableDeclaration<?> entry, TypeInfo owner, Map<String, Sym> args, Map<String, TypeInfo> objectParameters) {
        Walk walk = new Walk();
        walk.objectParameters.putAll(objectParameters);
        scan(new Frame(entry, owner, args, null, false, walk));
        return walk;
    }

    /** A prepared statement: its SQL, and the placeholders a helper that prepared it bound already. */
    private record PreparedSite(MethodCallExpr call, String variable, Sym sql, Position at, Map<Integer, Value> preset) {
    }

    /** A {@code setXxx} call on a statement; or, from a helper that received the statement, its placeholder's value. */
    private record Binding(String variable, Expression index, Expression value, MethodCallExpr call, Position at,
                           Integer boundIndex, Value boundValue) {
        Binding(String variable, Expression index, Expression value, MethodCallExpr call, Position at) {
            this(variable, index, value, call, at, null, null);
        }
    }

    private record Execution(String variable, boolean query, Position at, MethodCallExpr call) {
    }

    private void scan(Frame f) {
        f.walk.visited.add(f.method);
        if (body(f.method).isEmpty()) {
            return;
        }
        for (ObjectCreationExpr create : body(f.method).get().findAll(ObjectCreationExpr.class)) {
            List<Callee> constructors = new ArrayList<>();
            for (TypeInfo t : index.typesNamed(create.getType().getNameAsString())) {
                for (ConstructorDeclaration c : index.constructors(t)) {
                    if (arityMatches(c, create.getArguments().size())) {
                        constructors.add(new Callee(c, t));
                    }
                }
            }
            follow(constructors, create.getArguments(), create, f);
        }
        List<MethodCallExpr> calls = new ArrayList<>(body(f.method).get().findAll(MethodCallExpr.class));
        calls.sort(Comparator.comparing(c -> c.getBegin().orElse(Position.HOME)));
        List<PreparedSite> prepared = new ArrayList<>();
        List<Binding> bindings = new ArrayList<>();
        List<Execution> executions = new ArrayList<>();
        Set<String> plainStatements = new HashSet<>();
        for (MethodCallExpr call : calls) {
            String name = call.getNameAsString();
            int argc = call.getArguments().size();
            Position at = call.getBegin().orElse(Position.HOME);
            if (PREPARE.contains(name) && argc >= 1) {
                prepared.add(new PreparedSite(call, assignedVariable(call), eval(call.getArgument(0), f), at, Map.of()));
            } else if (EXECUTE_SQL.contains(name) && argc >= 1 && !isIntLike(call.getArgument(0)) && !ofTheSources(call, f)) {
                SqlSite.ExecutionHint hint = name.equals("executeQuery") ? SqlSite.ExecutionHint.QUERY
                        : name.equals("execute") || name.equals("addBatch") ? SqlSite.ExecutionHint.UNKNOWN
                        : SqlSite.ExecutionHint.UPDATE;
                f.walk.sites.addAll(sites(eval(call.getArgument(0), f), Map.of(), hint, f.at(call), f));
                if (statementKey(call.getScope().orElse(null)) != null) {
                    plainStatements.add(statementKey(call.getScope().get()));
                }
            } else if (SETTER.matcher(name).matches() && argc >= 2 && statementKey(call.getScope().orElse(null)) != null) {
                bindings.add(new Binding(statementKey(call.getScope().get()), call.getArgument(0),
                        name.equals("setNull") ? null : call.getArgument(1), call, at));
            } else if (EXECUTE_PREPARED.contains(name) && argc == 0 && statementKey(call.getScope().orElse(null)) != null) {
                executions.add(new Execution(statementKey(call.getScope().get()), name.equals("executeQuery"), at, call));
            } else {
                bindings.addAll(boundByHelper(call, at, f));
                PreparedSite made = preparedByHelper(call, at, f);
                if (made != null) {
                    prepared.add(made);
                } else {
                    follow(call, f);
                }
            }
        }
        // a statement kept in a field counts where it is executed (uncoveredExecutions)
        prepared.removeIf(ps -> storedInField(ps.call(), f));
        for (int i = 0; i < prepared.size(); i++) {
            PreparedSite ps = prepared.get(i);
            Position end = null;
            if (ps.variable() != null) {
                for (int j = i + 1; j < prepared.size(); j++) {
                    if (ps.variable().equals(prepared.get(j).variable())) {
                        end = prepared.get(j).at();
                        break;
                    }
                }
            }
            Map<Integer, Value> positional = new LinkedHashMap<>(ps.preset());
            boolean[] computedIndex = {false};
            SqlSite.ExecutionHint hint = SqlSite.ExecutionHint.UNKNOWN;
            if (ps.variable() != null) {
                positional.putAll(bind(ps.variable(), ps.at(), end, bindings, f, computedIndex));
                boolean anyQuery = false;
                boolean anyOther = false;
                for (Execution x : executions) {
                    if (x.variable().equals(ps.variable()) && !x.at().isBefore(ps.at()) && (end == null || x.at().isBefore(end))) {
                        anyQuery |= x.query();
                        anyOther |= !x.query();
                    }
                }
                hint = anyOther ? SqlSite.ExecutionHint.UPDATE : anyQuery ? SqlSite.ExecutionHint.QUERY : SqlSite.ExecutionHint.UNKNOWN;
                if (!anyOther && !anyQuery && neverExecuted(ps.variable(), f)) {
                    f.walk.notes.add("statement " + ps.variable() + " prepared at " + f.at(ps.call())
                            + " is never executed: it reads and writes nothing");
                    continue;
                }
            } else if (ps.call().getParentNode().orElse(null) instanceof MethodCallExpr chained
                    && chained.getNameAsString().equals("executeQuery")) {
                hint = SqlSite.ExecutionHint.QUERY;
            }
            if (computedIndex[0]) {
                positional.clear();
                f.walk.notes.add("placeholder index computed at run time at " + f.at(ps.call()) + ": its values are free");
            }
            f.walk.sites.addAll(sites(ps.sql(), positional, hint, f.at(ps.call()), f));
        }
        executions.removeIf(x -> plainStatements.contains(x.variable()));
        uncoveredExecutions(prepared, bindings, executions, f);
    }

    /**
     * Whether a local statement variable is only ever bound and closed in its method: never executed, passed,
     * returned, stored or copied, so the statement it holds runs nothing.
     */
    private static boolean neverExecuted(String var, Frame f) {
        if (!f.defs.declared.contains(var) || body(f.method).isEmpty()) {
            return false;
        }
        for (NameExpr use : body(f.method).get().findAll(NameExpr.class)) {
            if (!use.getNameAsString().equals(var)) {
                continue;
            }
            Node parent = use.getParentNode().orElse(null);
            boolean bindsOrCloses = parent instanceof MethodCallExpr c && c.getScope().orElse(null) == use
                    && (SETTER.matcher(c.getNameAsString()).matches() || c.getNameAsString().equals("close")
                    || c.getNameAsString().equals("clearParameters"));
            boolean assigned = parent instanceof AssignExpr a && a.getTarget() == use;
            if (!bindsOrCloses && !assigned) {
                return false;
            }
        }
        return true;
    }

    /** The values bound to each placeholder by {@code var.setXxx(i, v)} calls between two positions. */
    private Map<Integer, Value> bind(String var, Position from, Position to, List<Binding> bindings, Frame f,
                                     boolean[] computedIndex) {
        Map<Integer, List<Value>> bound = new LinkedHashMap<>();
        for (Binding b : bindings) {
            if (!b.variable().equals(var) || from != null && b.at().isBefore(from) || to != null && b.at().isAfter(to)) {
                continue;
            }
            if (b.boundIndex() != null) {
                bound.computeIfAbsent(b.boundIndex(), k -> new ArrayList<>()).add(b.boundValue());
                continue;
            }
            Integer idx = intConstant(eval(b.index(), f));
            if (idx == null) {
                Map<Integer, Value> looped = LoopBinding.of(b.call(), f.arrays::get);
                if (looped == null) {
                    computedIndex[0] = true;
                } else {
                    looped.forEach((i, v) -> bound.computeIfAbsent(i, k -> new ArrayList<>()).add(v));
                }
                continue;
            }
            Value v = b.value() == null ? new Value.Free("NULL") : Sym.asValue(eval(b.value(), f));
            bound.computeIfAbsent(idx, k -> new ArrayList<>()).add(v);
        }
        Map<Integer, Value> positional = new LinkedHashMap<>();
        for (Map.Entry<Integer, List<Value>> e : bound.entrySet()) {
            List<Value> vs = e.getValue();
            boolean same = vs.stream().allMatch(v -> v.equals(vs.get(0)));
            positional.put(e.getKey(), same ? vs.get(0)
                    : new Value.Free("placeholder ?" + e.getKey() + " is bound to several values"));
        }
        return positional;
    }

    /**
     * Executions of a statement this method did not prepare. A statement received as a parameter was
     * prepared by a caller, whose site counts; one made by {@code createStatement()} or returned by an
     * analyzed method is counted there. A field prepared elsewhere in the class is resolved to its SQL;
     * anything else (a statement cache, say) is SQL the analysis cannot see: any row of any table.
     */
    private void uncoveredExecutions(List<PreparedSite> prepared, List<Binding> bindings, List<Execution> executions,
                                     Frame f) {
        Set<String> handled = new HashSet<>();
        for (Execution x : executions) {
            boolean covered = prepared.stream().anyMatch(p -> x.variable().equals(p.variable()) && !x.at().isBefore(p.at()));
            if (covered || !handled.add(x.variable())) {
                continue;
            }
            String v = x.variable();
            boolean query = executions.stream().filter(e -> e.variable().equals(v)).allMatch(Execution::query);
            SqlSite.ExecutionHint hint = query ? SqlSite.ExecutionHint.QUERY : SqlSite.ExecutionHint.UNKNOWN;
            int dot = v.indexOf('.');
            String base = dot < 0 ? v : v.substring(0, dot);
            String member = dot < 0 ? null : v.substring(v.lastIndexOf('.') + 1);
            if (member == null && f.defs.declared.contains(v)) {
                List<Expression> defs = f.defs.assignments.getOrDefault(v, List.of());
                if (!defs.isEmpty() && defs.stream().allMatch(d -> statementFactory(d, f))) {
                    continue;
                }
                String field = defs.size() == 1 && !f.defs.opaque.contains(v) ? aliasedField(defs.get(0), f) : null;
                List<Sym> aliased = field == null ? List.of() : fieldPreparedSql(field, ownHierarchy(f), f);
                if (!aliased.isEmpty()) {
                    // a local alias of a statement prepared into a field of this class: its bindings are the alias's
                    boolean[] computedIndex = {false};
                    Map<Integer, Value> positional = bind(v, null, null, bindings, f, computedIndex);
                    for (Sym sql : aliased) {
                        f.walk.sites.addAll(sites(sql, computedIndex[0] ? Map.of() : positional, hint, f.at(x.call()), f));
                    }
                    continue;
                }
                f.walk.sites.add(new SqlSite(null, "statement " + v + " comes from where the analysis cannot see",
                        Map.of(), Map.of(), hint, f.at(x.call())));
                continue;
            }
            if (member == null && f.args.containsKey(v)) {
                continue; // prepared by a caller, whose site counts
            }
            List<TypeInfo> types = new ArrayList<>();
            if (member == null) {
                types.addAll(ownHierarchy(f));
            } else if (dot == v.lastIndexOf('.')) {
                declaredType(base, f).ifPresent(type -> index.typesNamed(type).forEach(t -> types.addAll(index.hierarchy(t))));
            }
            List<Sym> sqls = fieldPreparedSql(member == null ? v : member, types, f);
            if (sqls.isEmpty()) {
                if (member != null && f.args.containsKey(base)) {
                    continue; // a field of an object the caller filled: its site counts there
                }
                f.walk.sites.add(new SqlSite(null, "statement " + v + " is prepared where the analysis cannot see",
                        Map.of(), Map.of(), hint, f.at(x.call())));
                continue;
            }
            boolean[] computedIndex = {false};
            Map<Integer, Value> positional = bind(v, null, null, bindings, f, computedIndex);
            if (computedIndex[0]) {
                positional.clear();
            }
            for (Sym sql : sqls) {
                f.walk.sites.addAll(sites(sql, positional, hint, f.at(x.call()), f));
            }
        }
    }

    /** This class, its supertypes and its outer classes' (where a field of this code is declared). */
    private List<TypeInfo> ownHierarchy(Frame f) {
        List<TypeInfo> types = new ArrayList<>();
        for (TypeInfo t = f.owner; t != null; t = t.outer) {
            types.addAll(index.hierarchy(t));
        }
        return types;
    }

    /** The field a local variable's only definition copies ({@code ps = sell}, {@code ps = this.sell}), or null. */
    private String aliasedField(Expression def, Frame f) {
        if (def instanceof FieldAccessExpr fa && fa.getScope() instanceof ThisExpr) {
            return fa.getNameAsString();
        }
        if (def instanceof NameExpr n && !f.defs.declared.contains(n.getNameAsString()) && !f.args.containsKey(n.getNameAsString())) {
            return n.getNameAsString();
        }
        return null;
    }

    private boolean statementFactory(Expression def, Frame f) {
        if (!(stripped(def) instanceof MethodCallExpr call)) {
            return false;
        }
        String n = call.getNameAsString();
        if (n.equals("createStatement") || PREPARE.contains(n)) {
            return true;
        }
        List<Callee> callees = resolve(call, f);
        return !callees.isEmpty() && callees.stream().allMatch(c -> runsSql(c.method()));
    }

    /** The SQL of {@code field = x.prepareStatement(sql)} assignments in the first of the types declaring the field. */
    private List<Sym> fieldPreparedSql(String field, List<TypeInfo> types, Frame f) {
        List<Sym> out = new ArrayList<>();
        for (TypeInfo type : types) {
            if (index.field(type, field).isEmpty()) {
                continue;
            }
            for (AssignExpr a : type.declaration.findAll(AssignExpr.class)) {
                boolean target = a.getTarget() instanceof NameExpr n && n.getNameAsString().equals(field)
                        || a.getTarget() instanceof FieldAccessExpr fa && fa.getScope() instanceof ThisExpr
                        && fa.getNameAsString().equals(field);
                if (target && a.getValue() instanceof MethodCallExpr call && PREPARE.contains(call.getNameAsString())
                        && call.getArguments().size() >= 1) {
                    out.add(eval(call.getArgument(0), new Frame(null, type, Map.of(), null, true, f.walk)));
                }
            }
            for (VariableDeclarator v : type.declaration.findAll(VariableDeclarator.class)) {
                if (v.getNameAsString().equals(field) && v.getInitializer().orElse(null) instanceof MethodCallExpr call
                        && PREPARE.contains(call.getNameAsString()) && call.getArguments().size() >= 1) {
                    out.add(eval(call.getArgument(0), new Frame(null, type, Map.of(), null, true, f.walk)));
                }
            }
            return out;
        }
        return out;
    }

    private static boolean storedInField(MethodCallExpr call, Frame f) {
        Node parent = call.getParentNode().orElse(null);
        while (parent instanceof CastExpr || parent instanceof EnclosedExpr) {
            parent = parent.getParentNode().orElse(null);
        }
        if (parent instanceof AssignExpr a) {
            if (a.getTarget() instanceof FieldAccessExpr fa) {
                return fa.getScope() instanceof ThisExpr;
            }
            if (a.getTarget() instanceof NameExpr n) {
                String name = n.getNameAsString();
                return !f.defs.declared.contains(name) && !f.args.containsKey(name);
            }
        }
        return false;
    }

    /**
     * A call named like JDBC's that runs a method of the sources, found by its receiver's type ({@code execute(conn, ps)}
     * of this class, {@code jdbc.execute(sql)} of a class of the sources): not {@code Statement.execute(String)}, so
     * its first argument is no SQL text; it is followed as any other call. A receiver of unknown type stays JDBC's.
     */
    private boolean ofTheSources(MethodCallExpr call, Frame f) {
        if (!calleeKnown(call, f)) {
            return false;
        }
        List<TypeInfo> receivers = new ArrayList<>();
        Optional<Expression> scope = call.getScope();
        if (scope.isEmpty() || scope.get() instanceof ThisExpr) {
            for (TypeInfo t = f.owner; t != null; t = t.outer) {
                receivers.add(t);
            }
        } else if (scope.get() instanceof NameExpr n && !isVariable(n.getNameAsString(), f)) {
            receivers.addAll(index.typesNamed(n.getNameAsString()));
        } else if (scope.get() instanceof NameExpr n) {
            declaredType(n.getNameAsString(), f).ifPresent(t -> receivers.addAll(index.typesNamed(t)));
        }
        // declared by the receiver's own type or its supertypes in the sources, not only by a subclass
        return receivers.stream().anyMatch(t -> !methodsOf(t, call.getNameAsString(), call.getArguments().size()).isEmpty());
    }

    private static boolean isIntLike(Expression e) {
        return e instanceof IntegerLiteralExpr;
    }

    private static Integer intConstant(Sym s) {
        if (s instanceof Sym.Scalar sc && sc.value() instanceof Value.Constant c && c.numeric()) {
            try {
                return Integer.parseInt(c.text());
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return null;
    }

    /**
     * The name a statement is known by: a variable ({@code ps}), a field of this object ({@code this.ps} is
     * {@code ps}) or of another one ({@code dao.ps}); null for anything else.
     */
    private static String statementKey(Node scope) {
        if (scope instanceof NameExpr n) {
            return n.getNameAsString();
        }
        if (scope instanceof FieldAccessExpr fa) {
            if (fa.getScope() instanceof ThisExpr) {
                return fa.getNameAsString();
            }
            String inner = statementKey(fa.getScope());
            return inner == null ? null : inner + "." + fa.getNameAsString();
        }
        return null;
    }

    /** The variable a {@code prepareStatement(...)} result is stored in, if any. */
    private static String assignedVariable(MethodCallExpr call) {
        Node cur = call;
        Node parent = cur.getParentNode().orElse(null);
        while (parent instanceof CastExpr || parent instanceof EnclosedExpr) {
            cur = parent;
            parent = parent.getParentNode().orElse(null);
        }
        if (parent instanceof VariableDeclarator v) {
            return v.getNameAsString();
        }
        if (parent instanceof AssignExpr a && a.getValue() == cur) {
            if (a.getTarget() instanceof NameExpr n) {
                return n.getNameAsString();
            }
            if (a.getTarget() instanceof FieldAccessExpr) {
                return statementKey(a.getTarget());
            }
        }
        return null;
    }

    // ------------------------------------------------------------------------------------------------
    // SQL text

    /** One site per SQL text the expression may hold. */
    private List<SqlSite> sites(Sym sql, Map<Integer, Value> positional, SqlSite.ExecutionHint hint, SourceRef at, Frame f) {
        if (sql instanceof Sym.Alternatives alternatives) {
            List<SqlSite> out = new ArrayList<>();
            for (Sym.Text t : alternatives.texts()) {
                out.add(site(t, positional, hint, at, f));
            }
            return out;
        }
        return List.of(site(sql, positional, hint, at, f));
    }

    private SqlSite site(Sym sql, Map<Integer, Value> positional, SqlSite.ExecutionHint hint, SourceRef at, Frame f) {
        if (sql instanceof Sym.Obj obj) {
            return new SqlSite(null, "SQL text is an object of " + obj.type().name(), positional, Map.of(), hint, at);
        }
        if (sql instanceof Sym.Array) {
            return new SqlSite(null, "SQL text is an array", positional, Map.of(), hint, at);
        }
        if (sql instanceof Sym.Scalar scalar) {
            String why = scalar.value() instanceof Value.Param p ? "SQL text is the input parameter " + p.name()
                    : scalar.value() instanceof Value.Free free ? free.why() : "SQL text is not a string";
            return new SqlSite(null, why, positional, Map.of(), hint, at);
        }
        Sym.Text text = (Sym.Text) sql;
        StringBuilder sb = new StringBuilder();
        Map<String, Value> named = new LinkedHashMap<>();
        char skipQuote = 0;
        List<Sym.Piece> pieces = text.pieces();
        for (int i = 0; i < pieces.size(); i++) {
            Sym.Piece piece = pieces.get(i);
            if (piece instanceof Sym.Lit lit) {
                String s = lit.text();
                if (skipQuote != 0 && !s.isEmpty() && s.charAt(0) == skipQuote) {
                    s = s.substring(1);
                }
                skipQuote = 0;
                sb.append(s);
                continue;
            }
            Sym.Hole hole = (Sym.Hole) piece;
            String next = i + 1 < pieces.size() && pieces.get(i + 1) instanceof Sym.Lit l ? l.text() : null;
            String name = SqlAccessExtractor.HOLE + (++f.walk.holes);
            char quote = Quoting.openQuote(sb, doubleQuotedStrings);
            if (quote != 0) {
                if (sb.charAt(sb.length() - 1) == quote && next != null && !next.isEmpty() && next.charAt(0) == quote) {
                    sb.setLength(sb.length() - 1);
                    sb.append(':').append(name);
                    named.put(name, hole.value());
                    skipQuote = quote;
                } else {
                    sb.append(name); // part of a longer string literal: that literal is a free value
                }
                continue;
            }
            char before = sb.length() == 0 ? ' ' : sb.charAt(sb.length() - 1);
            char after = next == null || next.isEmpty() ? (i + 1 < pieces.size() ? 'x' : ' ') : next.charAt(0);
            if (sb.length() == 0 || Character.isLetterOrDigit(before) || before == '_' || before == '.'
                    || before == '"' || before == '`' || Character.isLetterOrDigit(after) || after == '_'
                    || after == '.' || !LiteralPosition.follows(sb)) {
                return new SqlSite(null, "`" + hole.java() + "` is concatenated into the SQL text as part of "
                        + "an identifier, keyword or number, or where a column or condition may go", positional,
                        Map.of(), hint, at);
            }
            sb.append(':').append(name);
            named.put(name, hole.value());
        }
        return new SqlSite(doubleQuotedStrings ? Quoting.singleQuoted(sb) : sb.toString(), null, positional, named, hint, at);
    }

    // ------------------------------------------------------------------------------------------------
    // Following calls into the analyzed sources

    private void follow(MethodCallExpr call, Frame f) {
        follow(resolve(call, f), call.getArguments(), call, f);
    }

    private void follow(List<Callee> callees, List<Expression> arguments, Node call, Frame f) {
        for (Callee callee : callees) {
            CallableDeclaration<?> m = callee.method();
            if (!runsSql(m)) {
                continue;
            }
            boolean summary = f.onStack(m) || f.depth + 1 > MAX_DEPTH;
            if (summary) {
                if (!f.walk.summarized.add(m)) {
                    continue;
                }
                f.walk.notes.add("call to " + callee.owner().name() + "." + m.getNameAsString() + " at " + f.at(call)
                        + (f.onStack(m) ? " is recursive" : " is too deep") + ": analyzed with all its parameters free");
            }
            Frame g = new Frame(m, callee.owner(), arguments(m, summary ? List.of() : arguments, f), f, summary, f.walk);
            if (!summary) {
                g.arrays.putAll(arrayArguments(m, arguments, f));
            }
            scan(g);
        }
    }

    private record Callee(CallableDeclaration<?> method, TypeInfo owner) {
    }

    private List<Callee> resolve(MethodCallExpr call, Frame f) {
        String name = call.getNameAsString();
        int argc = call.getArguments().size();
        Optional<Expression> scope = call.getScope();
        List<TypeInfo> targets = new ArrayList<>();
        if (scope.isEmpty() || scope.get() instanceof ThisExpr) {
            for (TypeInfo t = f.owner; t != null; t = t.outer) {
                targets.addAll(index.hierarchy(t));
                targets.addAll(index.subtypes(t));
            }
        } else if (scope.get() instanceof SuperExpr) {
            targets.addAll(index.hierarchy(f.owner));
            targets.remove(f.owner);
        } else if (scope.get() instanceof NameExpr n) {
            String var = n.getNameAsString();
            Optional<String> type = declaredType(var, f);
            if (type.isPresent()) {
                if (type.get().isEmpty() || type.get().equals("var")) {
                    return fallback(name, argc);
                }
                for (TypeInfo t : index.typesNamed(type.get())) {
                    targets.addAll(index.hierarchy(t));
                    targets.addAll(index.subtypes(t));
                }
            } else {
                targets.addAll(index.typesNamed(var)); // a static call Helper.method(...)
                List<TypeInfo> withSupers = new ArrayList<>();
                for (TypeInfo t : targets) {
                    withSupers.addAll(index.hierarchy(t));
                }
                targets = withSupers;
            }
        } else if (scope.get() instanceof FieldAccessExpr fa && fa.getScope() instanceof ThisExpr) {
            Optional<String> type = fieldType(fa.getNameAsString(), f.owner);
            if (type.isEmpty()) {
                return fallback(name, argc);
            }
            for (TypeInfo t : index.typesNamed(type.get())) {
                targets.addAll(index.hierarchy(t));
                targets.addAll(index.subtypes(t));
            }
        } else if (scope.get() instanceof FieldAccessExpr fa && !index.typesNamed(fa.getNameAsString()).isEmpty()
                && fa.getScope() instanceof NameExpr) {
            targets.addAll(index.typesNamed(fa.getNameAsString())); // pkg.Helper.method(...)
        } else {
            return fallback(name, argc); // type of the receiver unknown: any analyzed method of that name
        }
        List<Callee> out = new ArrayList<>();
        Set<CallableDeclaration<?>> seen = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (TypeInfo t : targets) {
            for (MethodDeclaration m : index.methods(t)) {
                if (m.getNameAsString().equals(name) && arityMatches(m, argc) && seen.add(m)) {
                    out.add(new Callee(m, t));
                }
            }
        }
        return byArgumentTypes(out, call, f);
    }

    /**
     * Overloads of one arity told apart by the static types of the arguments where they are evident (a
     * literal, a declared variable or parameter): an overload whose parameter cannot take an argument is
     * not called. When nothing is evident every overload is followed (the union: never fewer statements).
     */
    private List<Callee> byArgumentTypes(List<Callee> callees, MethodCallExpr call, Frame f) {
        if (callees.size() < 2) {
            return callees;
        }
        List<Callee> out = new ArrayList<>();
        for (Callee c : callees) {
            boolean possible = true;
            for (int i = 0; i < call.getArguments().size() && i < c.method().getParameters().size(); i++) {
                Parameter p = c.method().getParameter(i);
                if (p.isVarArgs()) {
                    break;
                }
                String argType = staticType(call.getArgument(i), f);
                if (argType != null && !Overloads.mayPass(argType, SourceIndex.simpleName(p.getType()))) {
                    possible = false;
                    break;
                }
            }
            if (possible) {
                out.add(c);
            }
        }
        return out.isEmpty() ? callees : out;
    }

    private String staticType(Expression e, Frame f) {
        if (e instanceof com.github.javaparser.ast.expr.LiteralExpr) {
            return Overloads.literalType(e);
        }
        if (e instanceof NameExpr n) {
            Optional<String> declared = declaredType(n.getNameAsString(), f);
            return declared.filter(t -> !t.isEmpty() && !t.equals("var")).orElse(null);
        }
        if (e instanceof FieldAccessExpr fa && fa.getScope() instanceof NameExpr t && !isVariable(t.getNameAsString(), f)) {
            for (TypeInfo type : index.typesNamed(t.getNameAsString())) { // a constant of a class: K.LIMIT
                Optional<String> declared = fieldType(fa.getNameAsString(), type);
                if (declared.isPresent()) {
                    return declared.get();
                }
            }
        }
        return null;
    }

    private final Map<String, List<Callee>> fallbackCache = new HashMap<>();

    private List<Callee> fallback(String name, int argc) {
        return fallbackCache.computeIfAbsent(name + "/" + argc, k -> computeFallback(name, argc));
    }

    private List<Callee> computeFallback(String name, int argc) {
        List<Callee> out = new ArrayList<>();
        for (TypeInfo t : index.allTypes()) {
            for (MethodDeclaration m : index.methods(t)) {
                if (m.getNameAsString().equals(name) && arityMatches(m, argc) && runsSql(m)) {
                    out.add(new Callee(m, t));
                }
            }
        }
        return out;
    }

    /** The declared simple type name of a variable visible in the frame; empty string when unclear. */
    private Optional<String> declaredType(String var, Frame f) {
        if (f.defs.declaredType.containsKey(var)) {
            return Optional.of(f.defs.declaredType.get(var));
        }
        for (Parameter p : f.method == null ? List.<Parameter>of() : f.method.getParameters()) {
            if (p.getNameAsString().equals(var)) {
                return Optional.of(SourceIndex.simpleName(p.getType()));
            }
        }
        return fieldType(var, f.owner);
    }

    private Optional<String> fieldType(String name, TypeInfo owner) {
        for (TypeInfo t = owner; t != null; t = t.outer) {
            Optional<Node> field = index.field(t, name);
            if (field.isPresent()) {
                return Optional.of(SourceIndex.simpleName(typeOfField(field.get())));
            }
        }
        return Optional.empty();
    }

    private static Type typeOfField(Node field) {
        if (field instanceof VariableDeclarator v) {
            return v.getType();
        }
        return ((Parameter) field).getType();
    }

    // ------------------------------------------------------------------------------------------------
    // Evaluating expressions to symbolic values

    Sym eval(Expression e, Frame f) {
        try {
            return evalUnchecked(e, f);
        } catch (RuntimeException | StackOverflowError ex) {
            return Sym.free("expression the analysis could not follow: " + shortJava(e));
        }
    }

    private Sym evalUnchecked(Expression e, Frame f) {
        if (e instanceof StringLiteralExpr s) {
            return Sym.Text.literal(s.asString());
        }
        if (e instanceof TextBlockLiteralExpr t) {
            return Sym.Text.literal(t.asString());
        }
        if (e instanceof CharLiteralExpr c) {
            return new Sym.Scalar(Value.Constant.string(String.valueOf(c.asChar())));
        }
        if (e instanceof IntegerLiteralExpr i) {
            return new Sym.Scalar(Value.Constant.number(String.valueOf(i.asNumber())));
        }
        if (e instanceof LongLiteralExpr l) {
            return new Sym.Scalar(Value.Constant.number(String.valueOf(l.asNumber())));
        }
        if (e instanceof DoubleLiteralExpr d) {
            return new Sym.Scalar(Value.Constant.number(String.valueOf(d.asDouble())));
        }
        if (e instanceof BooleanLiteralExpr b) {
            return new Sym.Scalar(Value.Constant.number(b.getValue() ? "1" : "0"));
        }
        if (e instanceof NullLiteralExpr) {
            return Sym.free("null");
        }
        if (e instanceof EnclosedExpr en) {
            return eval(en.getInner(), f);
        }
        if (e instanceof CastExpr cast) {
            return eval(cast.getExpression(), f);
        }
        if (e instanceof AssignExpr assign && assign.getOperator() == AssignExpr.Operator.ASSIGN) {
            return eval(assign.getValue(), f);
        }
        if (e instanceof BinaryExpr bin) {
            return binary(bin, f);
        }
        if (e instanceof ConditionalExpr cond) {
            Sym a = eval(cond.getThenExpr(), f);
            Sym b = eval(cond.getElseExpr(), f);
            if (a.equals(b)) {
                return a;
            }
            Sym alternatives = Sym.Alternatives.of(List.of(a, b));
            return alternatives != null ? alternatives : Sym.free("conditional value " + shortJava(e));
        }
        if (e instanceof UnaryExpr u && u.getOperator() == UnaryExpr.Operator.MINUS) {
            Sym inner = eval(u.getExpression(), f);
            if (inner instanceof Sym.Scalar s && s.value() instanceof Value.Constant c && c.numeric()) {
                return new Sym.Scalar(Value.Constant.number(c.text().startsWith("-") ? c.text().substring(1) : "-" + c.text()));
            }
            return Sym.free("computed value " + shortJava(e));
        }
        if (e instanceof UnaryExpr u && u.getOperator() == UnaryExpr.Operator.PLUS) {
            return eval(u.getExpression(), f);
        }
        if (e instanceof NameExpr n) {
            Sym grown = grown(n.getNameAsString(), n.getBegin().orElse(Position.HOME), f);
            Sym folded = grown != null ? grown : foldedByLoop(n, f);
            return folded != null ? folded : name(n.getNameAsString(), f);
        }
        if (e instanceof FieldAccessExpr fa) {
            return fieldAccess(fa, f);
        }
        if (e instanceof MethodCallExpr call) {
            return methodCall(call, f);
        }
        if (e instanceof ObjectCreationExpr create) {
            String type = create.getType().getNameAsString();
            if (BOXES.contains(type) && create.getArguments().size() == 1) {
                return eval(create.getArgument(0), f);
            }
            if (Appends.BUILDERS.contains(type) && create.getArguments().size() <= 1) {
                return newBuilder(create, f);
            }
            Sym wrapper = wrapper(create, f);
            if (wrapper != null) {
                return wrapper;
            }
            return Sym.free("new " + type + "(...)");
        }
        if (e instanceof ArrayAccessExpr) {
            return Sym.free("array element " + shortJava(e));
        }
        return Sym.free("expression " + shortJava(e));
    }

    private Sym binary(BinaryExpr bin, Frame f) {
        if (bin.getOperator() != BinaryExpr.Operator.PLUS) {
            return Sym.free("computed value " + shortJava(bin));
        }
        return plus(eval(bin.getLeft(), f), eval(bin.getRight(), f), bin.getLeft().toString(),
                bin.getRight().toString(), shortJava(bin));
    }

    /** {@code left + right} of symbolic values (string concatenation, or arithmetic: free). */
    private static Sym plus(Sym left, Sym right, String leftJava, String rightJava, String whole) {
        left = left instanceof Sym.Obj || left instanceof Sym.Array ? new Sym.Scalar(Sym.asValue(left)) : left;
        right = right instanceof Sym.Obj || right instanceof Sym.Array ? new Sym.Scalar(Sym.asValue(right)) : right;
        if (left instanceof Sym.Alternatives la) {
            return la.concat(right, rightJava);
        }
        if (right instanceof Sym.Alternatives ra && left instanceof Sym.Scalar ls) {
            List<Sym> out = new ArrayList<>();
            for (Sym.Text t : ra.texts()) {
                out.add(Sym.Text.prefix(ls.value(), leftJava, t));
            }
            Sym alternatives = Sym.Alternatives.of(out);
            return alternatives != null ? alternatives : Sym.free("computed string " + whole);
        }
        if (right instanceof Sym.Alternatives ra) {
            List<Sym> out = new ArrayList<>();
            for (Sym.Text t : ra.texts()) {
                out.add(((Sym.Text) left).concat(t, rightJava));
            }
            Sym alternatives = Sym.Alternatives.of(out);
            return alternatives != null ? alternatives : Sym.free("computed string " + whole);
        }
        if (left instanceof Sym.Text lt) {
            return lt.concat(right, rightJava);
        }
        if (right instanceof Sym.Text rt) {
            return Sym.Text.prefix(((Sym.Scalar) left).value(), leftJava, rt);
        }
        return Sym.free("arithmetic " + whole);
    }

    private static final java.util.regex.Pattern FORMAT_SPEC =
            java.util.regex.Pattern.compile("%(\\d+\\$)?([-#+ 0,(<]*)(\\d+)?(\\.\\d+)?([a-zA-Z%])");

    /**
     * {@code String.format(FORMAT, args)} or {@code FORMAT.formatted(args)} with a constant format: the text
     * with each argument where its specifier is ({@code %s} of a constant is text, of a value a hole bound
     * like a placeholder; any other conversion of a value is a free value). Explicit argument indexes and
     * a computed format are not followed.
     */
    private Sym format(Sym format, List<Expression> args, Frame f, String java) {
        if (!(format instanceof Sym.Text t) || !t.isLiteral()) {
            return Sym.free("format computed at run time: " + java);
        }
        String text = t.literalText();
        java.util.regex.Matcher m = FORMAT_SPEC.matcher(text);
        Sym out = Sym.Text.literal("");
        int last = 0;
        int next = 0;
        while (m.find()) {
            out = appendLiteral(out, text.substring(last, m.start()), java);
            String conversion = m.group(5);
            if (conversion.equals("%") || conversion.equals("n")) {
                out = appendLiteral(out, conversion.equals("%") ? "%" : "\n", java);
            } else if (m.group(1) != null || m.group(2).contains("<") || next >= args.size()) {
                return Sym.free("format with argument indexes: " + java);
            } else {
                Expression arg = args.get(next++);
                Sym value = eval(arg, f);
                boolean plain = m.group(2).isEmpty() && m.group(3) == null && m.group(4) == null
                        && (conversion.equals("s") || conversion.equals("d"));
                if (!plain && !(value instanceof Sym.Scalar)) {
                    return Sym.free("text formatted with %" + conversion + ": " + java);
                }
                out = plus(out, plain ? value : Sym.free("value formatted with " + m.group()), "", arg.toString(), java);
            }
            last = m.end();
        }
        return appendLiteral(out, text.substring(last), java);
    }

    private static Sym appendLiteral(Sym text, String literal, String java) {
        return literal.isEmpty() ? text : plus(text, Sym.Text.literal(literal), "", "", java);
    }

    /**
     * The text a StringBuilder or a String grown by {@code +=} holds when evaluation reaches {@code upTo} (Appends),
     * or null when {@code var} is neither.
     */
    private Sym grown(String var, Position upTo, Frame f) {
        if (!f.defs.declared.contains(var) || f.method == null) {
            return null;
        }
        boolean builder = isBuilder(var, f);
        if (!builder && !(f.defs.appended.contains(var) && "String".equals(f.defs.declaredType.get(var)))) {
            return null;
        }
        String key = var + "@" + upTo;
        if (!f.evaluating.add(key)) {
            return Sym.free("text " + var + " depends on itself");
        }
        try {
            Appends.Plan plan = Appends.of(f.method, var, builder, upTo);
            if (plan.widened() != null) {
                return Sym.free("SQL text built piece by piece: " + plan.widened());
            }
            Sym text = eval(plan.initial(), f);
            for (Appends.Step step : plan.steps()) {
                if (!(text instanceof Sym.Text || text instanceof Sym.Alternatives)) {
                    return text;
                }
                Sym with = plus(text, appendedValue(step.appended(), f), "", step.appended().toString(),
                        shortJava(step.appended()));
                Sym next = step.conditional() ? Sym.Alternatives.of(List.of(text, with)) : with;
                text = next != null ? next : Sym.free("more than " + Sym.MAX_ALTERNATIVES + " possible SQL texts in " + var);
            }
            return text;
        } finally {
            f.evaluating.remove(key);
        }
    }

    private boolean isBuilder(String var, Frame f) {
        String type = f.defs.declaredType.get(var);
        if (Appends.BUILDERS.contains(type)) {
            return true;
        }
        List<Expression> defs = f.defs.assignments.getOrDefault(var, List.of());
        return "var".equals(type) && defs.size() == 1 && defs.get(0) instanceof ObjectCreationExpr create
                && Appends.BUILDERS.contains(create.getType().getNameAsString());
    }

    /** {@code new StringBuilder()}, {@code (capacity)} or {@code (text)}: the text it starts with. */
    private Sym newBuilder(ObjectCreationExpr create, Frame f) {
        if (create.getArguments().isEmpty() || create.getArgument(0) instanceof IntegerLiteralExpr) {
            return Sym.Text.literal("");
        }
        Sym initial = eval(create.getArgument(0), f);
        return initial instanceof Sym.Text || initial instanceof Sym.Alternatives ? initial
                : Sym.free("builder started from " + shortJava(create.getArgument(0)));
    }

    /** A char appended is text ({@code append(',')}); anything else is concatenated as by {@code +}. */
    private Sym appendedValue(Expression appended, Frame f) {
        if (appended instanceof CharLiteralExpr c) {
            return Sym.Text.literal(String.valueOf(c.asChar()));
        }
        return eval(appended, f);
    }

    /**
     * {@code x.append(a)} used as a value: a builder variable's text up to this call (its appends are counted there,
     * Appends), or a chain on {@code new StringBuilder(...)}; null when the chain starts from anything else.
     */
    private Sym appendedTo(MethodCallExpr call, Frame f) {
        Expression root = call;
        while (root instanceof MethodCallExpr c && c.getNameAsString().equals("append") && c.getScope().isPresent()) {
            root = c.getScope().get();
        }
        if (root instanceof NameExpr n && f.defs.declared.contains(n.getNameAsString()) && isBuilder(n.getNameAsString(), f)) {
            return grown(n.getNameAsString(), call.getEnd().orElse(Position.HOME), f);
        }
        if (root instanceof ObjectCreationExpr create && Appends.BUILDERS.contains(create.getType().getNameAsString())) {
            Sym before = eval(call.getScope().get(), f);
            if (!(before instanceof Sym.Text || before instanceof Sym.Alternatives)) {
                return before;
            }
            Expression arg = call.getArgument(0);
            return plus(before, appendedValue(arg, f), "", arg.toString(), shortJava(call));
        }
        return null;
    }

    /**
     * {@code TEXT.replace(A, B)} with constant strings: done on each possible constant text, else free. A regular
     * expression's replacement the analysis does not know is an unknown piece ({@link #replacedByUnknown}).
     */
    private static Sym replace(String how, Sym target, Sym from, Sym to, String java) {
        String replacement = to instanceof Sym.Text b && b.isLiteral() ? b.literalText() : null;
        if (!(from instanceof Sym.Text a) || !a.isLiteral() || replacement == null && how.equals("replace")) {
            return Sym.free("replacement computed at run time: " + java);
        }
        List<Sym> out = new ArrayList<>();
        List<Sym.Text> texts = target instanceof Sym.Alternatives alt ? alt.texts()
                : target instanceof Sym.Text t ? List.of(t) : List.of();
        for (Sym.Text t : texts) {
            if (!t.isLiteral()) {
                return Sym.free("replacement in a text holding values: " + java);
            }
            String text = t.literalText();
            Sym replaced;
            try {
                replaced = replacement == null ? replacedByUnknown(how, text, a.literalText(), java)
                        : Sym.Text.literal(how.equals("replace") ? text.replace(a.literalText(), replacement)
                        : how.equals("replaceAll") ? text.replaceAll(a.literalText(), replacement)
                        : text.replaceFirst(a.literalText(), replacement));
            } catch (RuntimeException badPattern) {
                return Sym.free("replacement with a pattern that does not compile: " + java);
            }
            if (replaced instanceof Sym.Scalar) {
                return replaced;
            }
            out.add(replaced);
        }
        Sym result = out.isEmpty() ? null : Sym.Alternatives.of(out);
        return result != null ? result : Sym.free("replacement in a computed text: " + java);
    }

    /**
     * {@code text.replaceFirst(REGEX, unknown)} (or {@code replaceAll} matching once): the text with that one match
     * replaced by an unknown piece ({@code "... IN (??)"} expanded to placeholders), which the SQL site reads by its
     * position (a lone element of an IN list binds nothing). Placeholders after it would be numbered from the unknown
     * piece on: then the text is free.
     */
    private static Sym replacedByUnknown(String how, String text, String regex, String java) {
        java.util.regex.Matcher m = Pattern.compile(regex).matcher(text);
        if (!m.find()) {
            return Sym.Text.literal(text);
        }
        String before = text.substring(0, m.start());
        String after = text.substring(m.end());
        if (after.contains("?") || how.equals("replaceAll") && m.find()) {
            return Sym.free("replacement computed at run time: " + java);
        }
        return Sym.Text.literal(before).concat(Sym.free("text replacing " + regex + " in " + java), java)
                .concat(Sym.Text.literal(after), java);
    }

    private Sym name(String name, Frame f) {
        if (f.settled.contains(name)) {
            return f.args.get(name);
        }
        if (f.defs.declared.contains(name)) {
            return local(name, f);
        }
        if (isParameter(name, f)) {
            if ((f.defs.opaque.contains(name) || f.defs.assignments.containsKey(name)) && !changedOnlyInLoopsNotRun(name, f)) {
                return Sym.free("parameter " + name + " is reassigned");
            }
            Sym s = f.args.get(name);
            return s != null ? s : Sym.free("parameter " + name);
        }
        if (f.self != null && f.self.fields().containsKey(name)) {
            return f.self.fields().get(name);
        }
        return field(name, f.owner, f);
    }

    /**
     * Whether every change of a variable is inside a for-each loop over an array known to be empty (the varargs a
     * call did not pass: {@code new SQLStmt(sql)} runs no substitution loop of {@code SQLStmt(String sql, int... subs)}).
     */
    private boolean changedOnlyInLoopsNotRun(String name, Frame f) {
        if (f.method == null || body(f.method).isEmpty()) {
            return false;
        }
        List<Node> changes = new ArrayList<>();
        for (AssignExpr a : body(f.method).get().findAll(AssignExpr.class)) {
            if (a.getTarget() instanceof NameExpr n && n.getNameAsString().equals(name)) {
                changes.add(a);
            }
        }
        for (UnaryExpr u : body(f.method).get().findAll(UnaryExpr.class)) {
            if (u.getExpression() instanceof NameExpr n && n.getNameAsString().equals(name) && changes(u)) {
                changes.add(u);
            }
        }
        for (Node change : changes) {
            boolean notRun = false;
            for (Node up = change.getParentNode().orElse(null); up != null && up != f.method; up = up.getParentNode().orElse(null)) {
                if (up instanceof LambdaExpr) {
                    return false;
                }
                if (up instanceof ForEachStmt loop && eval(loop.getIterable(), f) instanceof Sym.Array array
                        && array.elements().isEmpty()) {
                    notRun = true;
                }
            }
            if (!notRun) {
                return false;
            }
        }
        return !changes.isEmpty();
    }

    /** {@code p.matcher(text)}, directly or through a local variable with that one value; else null. */
    private MethodCallExpr matcherCall(Expression scope, Frame f) {
        Expression e = stripped(scope);
        if (e instanceof NameExpr v && f.defs.declared.contains(v.getNameAsString()) && !f.defs.opaque.contains(v.getNameAsString())
                && f.defs.assignments.getOrDefault(v.getNameAsString(), List.of()).size() == 1) {
            e = stripped(f.defs.assignments.get(v.getNameAsString()).get(0));
        }
        return e instanceof MethodCallExpr m && m.getNameAsString().equals("matcher") && m.getArguments().size() == 1
                && m.getScope().isPresent() ? m : null;
    }

    /**
     * A parameter whose only change is {@code v = expr} at the top of a for-each loop over an array of known elements,
     * the loop being a statement of the method's body: after the loop it is {@code expr} applied once per element (the
     * loop variable bound to it); before the loop, the argument. Null for anything else (the parameter is then free).
     */
    private Sym foldedByLoop(NameExpr use, Frame f) {
        String name = use.getNameAsString();
        if (f.method == null || f.settled.contains(name) || !isParameter(name, f) || f.defs.declared.contains(name)
                || body(f.method).isEmpty() || f.defs.appended.contains(name)) {
            return null;
        }
        List<AssignExpr> assigns = body(f.method).get().findAll(AssignExpr.class).stream()
                .filter(a -> a.getTarget() instanceof NameExpr n && n.getNameAsString().equals(name)).toList();
        boolean stepped = body(f.method).get().findAll(UnaryExpr.class).stream()
                .anyMatch(u -> u.getExpression() instanceof NameExpr n && n.getNameAsString().equals(name) && changes(u));
        if (assigns.size() != 1 || stepped || assigns.get(0).getOperator() != AssignExpr.Operator.ASSIGN
                || !(assigns.get(0).getParentNode().orElse(null) instanceof com.github.javaparser.ast.stmt.ExpressionStmt statement)
                || !(statement.getParentNode().orElse(null) instanceof BlockStmt loopBody)
                || !(loopBody.getParentNode().orElse(null) instanceof ForEachStmt loop)
                || loop.getParentNode().orElse(null) != body(f.method).get()
                || !loopBody.findAll(com.github.javaparser.ast.stmt.BreakStmt.class).isEmpty()
                || !loopBody.findAll(com.github.javaparser.ast.stmt.ContinueStmt.class).isEmpty()
                || !loopBody.findAll(ReturnStmt.class).isEmpty()) {
            return null; // a turn that may skip the assignment, or a loop that may end early
        }
        Position at = use.getBegin().orElse(Position.HOME);
        if (at.isBefore(loop.getBegin().orElse(Position.HOME))) {
            return f.args.get(name);
        }
        if (!at.isAfter(loop.getEnd().orElse(Position.HOME)) || !(eval(loop.getIterable(), f) instanceof Sym.Array array)) {
            return null;
        }
        String element = loop.getVariable().getVariable(0).getNameAsString();
        Sym current = f.args.get(name);
        for (Sym value : array.elements()) {
            Map<String, Sym> args = new LinkedHashMap<>(f.args);
            args.put(name, current);
            args.put(element, value);
            Frame g = new Frame(f.method, f.owner, args, f.caller, f.summary, f.walk, f.self);
            g.arrays.putAll(f.arrays);
            g.settled.add(name);
            g.settled.add(element);
            current = eval(assigns.get(0).getValue(), g);
        }
        return current;
    }

    private static boolean changes(UnaryExpr u) {
        return u.getOperator() == UnaryExpr.Operator.PREFIX_INCREMENT || u.getOperator() == UnaryExpr.Operator.PREFIX_DECREMENT
                || u.getOperator() == UnaryExpr.Operator.POSTFIX_INCREMENT || u.getOperator() == UnaryExpr.Operator.POSTFIX_DECREMENT;
    }

    private static boolean isParameter(String name, Frame f) {
        return f.args.containsKey(name);
    }

    private Sym local(String name, Frame f) {
        if (f.defs.opaque.contains(name)) {
            return Sym.free("variable " + name + " changes in a loop or is modified");
        }
        Sym cached = f.localCache.get(name);
        if (cached != null) {
            return cached;
        }
        if (!f.evaluating.add(name)) {
            return Sym.free("variable " + name + " depends on itself");
        }
        try {
            List<Expression> defs = f.defs.assignments.getOrDefault(name, List.of());
            Sym result;
            if (defs.isEmpty()) {
                result = Sym.free("variable " + name + " has no traceable value");
            } else {
                List<Sym> values = new ArrayList<>();
                for (Expression def : defs) {
                    values.add(eval(def, f));
                }
                result = values.get(0);
                if (!values.stream().allMatch(v -> v.equals(values.get(0)))) {
                    Sym alternatives = Sym.Alternatives.of(values);
                    result = alternatives != null ? alternatives : Sym.free("variable " + name + " has several values");
                }
            }
            f.localCache.put(name, result);
            return result;
        } finally {
            f.evaluating.remove(name);
        }
    }

    /** A field (of this class, its supertypes, its outer classes, or imported statically): its value, else free. */
    private Sym field(String name, TypeInfo owner, Frame f) {
        for (TypeInfo t = owner; t != null; t = t.outer) {
            Optional<Node> field = index.field(t, name);
            if (field.isPresent()) {
                return constantField(field.get(), name, f);
            }
        }
        Optional<Node> imported = owner == null ? Optional.empty() : staticImport(owner, name);
        return imported.isPresent() ? constantField(imported.get(), name, f) : Sym.free("unknown name " + name);
    }

    /** A field of a class of the sources that the file of the type imports statically ({@code import static K.*;}). */
    private Optional<Node> staticImport(TypeInfo type, String name) {
        var unit = type.declaration.findCompilationUnit();
        if (unit.isEmpty()) {
            return Optional.empty();
        }
        for (var imported : unit.get().getImports()) {
            if (!imported.isStatic()) {
                continue;
            }
            var qualified = imported.getName();
            String typeName = imported.isAsterisk() ? qualified.getIdentifier()
                    : qualified.getIdentifier().equals(name) ? qualified.getQualifier().map(q -> q.getIdentifier()).orElse(null) : null;
            for (TypeInfo t : typeName == null ? List.<TypeInfo>of() : index.typesNamed(typeName)) {
                Optional<Node> field = index.field(t, name);
                if (field.isPresent()) {
                    return field;
                }
            }
        }
        return Optional.empty();
    }

    /**
     * A field's value: a final field's initializer (static or not: a final instance field initialized where
     * it is declared holds that value in every instance), or, for a private field, any of the values the
     * declaring class assigns it (an SQL text chosen per database vendor in a constructor: each text is a
     * statement the transaction may run). Anything else is free.
     */
    private Sym constantField(Node field, String name, Frame f) {
        if (field instanceof VariableDeclarator v
                && v.getParentNode().orElse(null) instanceof com.github.javaparser.ast.body.FieldDeclaration decl) {
            Optional<TypeInfo> declaring = index.typeOf(decl);
            boolean constant = decl.isFinal() || isInterfaceMember(decl);
            List<Expression> values = new ArrayList<>();
            v.getInitializer().ifPresent(values::add);
            if (!constant && decl.isPrivate() && declaring.isPresent()) {
                values.addAll(FieldAssignments.of(declaring.get().declaration, name));
            } else if (!constant && changedAnywhere(name)) {
                values.clear(); // a public non-final field nothing in the sources changes keeps its initializer
            }
            if (!values.isEmpty() && declaring.isPresent()) {
                Frame constantFrame = new Frame(null, declaring.get(), Map.of(), null, f.summary, f.walk);
                if (!f.walk.constantsInProgress.add(v)) {
                    return Sym.free("constant " + name + " depends on itself");
                }
                try {
                    List<Sym> syms = new ArrayList<>();
                    for (Expression e : values) {
                        syms.add(eval(e, constantFrame));
                    }
                    if (syms.size() == 1) {
                        return syms.get(0);
                    }
                    Sym any = Sym.Alternatives.of(syms);
                    if (any != null) {
                        return any;
                    }
                } finally {
                    f.walk.constantsInProgress.remove(v);
                }
            }
        }
        return Sym.free("field " + name);
    }

    private final Map<String, Boolean> changedAnywhere = new HashMap<>();

    /** Whether any code of the sources changes a field (or a variable) of that name. */
    private boolean changedAnywhere(String field) {
        return changedAnywhere.computeIfAbsent(field,
                n -> index.units().values().stream().anyMatch(u -> FieldAssignments.changedUnder(u, n)));
    }

    private static boolean isInterfaceMember(com.github.javaparser.ast.body.FieldDeclaration decl) {
        return decl.getParentNode().orElse(null) instanceof com.github.javaparser.ast.body.ClassOrInterfaceDeclaration c
                && c.isInterface();
    }

    private Sym fieldAccess(FieldAccessExpr fa, Frame f) {
        String name = fa.getNameAsString();
        Expression scope = fa.getScope();
        if (scope instanceof ThisExpr) {
            return f.self != null && f.self.fields().containsKey(name) ? f.self.fields().get(name) : field(name, f.owner, f);
        }
        if (scope instanceof NameExpr n && !isVariable(n.getNameAsString(), f)) {
            for (TypeInfo t : index.typesNamed(n.getNameAsString())) {
                Optional<Node> field = index.field(t, name);
                if (field.isPresent()) {
                    return constantField(field.get(), name, f);
                }
            }
            return Sym.free("field " + fa);
        }
        if (scope instanceof FieldAccessExpr inner && !index.typesNamed(inner.getNameAsString()).isEmpty()
                && !(inner.getScope() instanceof ThisExpr)) {
            for (TypeInfo t : index.typesNamed(inner.getNameAsString())) {
                Optional<Node> field = index.field(t, name);
                if (field.isPresent()) {
                    return constantField(field.get(), name, f);
                }
            }
        }
        return member(eval(scope, f), name, fa.toString(), f);
    }

    private boolean isVariable(String name, Frame f) {
        if (f.defs.declared.contains(name) || f.args.containsKey(name)) {
            return true;
        }
        for (TypeInfo t = f.owner; t != null; t = t.outer) {
            if (index.field(t, name).isPresent()) {
                return true;
            }
        }
        return false;
    }

    /** A field (or record component, or simple getter) of a parameter object declared in the sources. */
    private Sym member(Sym target, String member, String java, Frame f) {
        if (target instanceof Sym.Obj obj) {
            Sym value = obj.fields().get(member);
            return value != null ? value : Sym.free("field " + java + " (not fixed by the constructor)");
        }
        if (target instanceof Sym.Scalar s && s.value() instanceof Value.Param p) {
            TypeInfo type = f.walk.objectParameters.get(p.name());
            if (type != null && index.field(type, member).isPresent()) {
                String path = p.name() + "." + member;
                Node field = index.field(type, member).get();
                String fieldType = SourceIndex.simpleName(typeOfField(field));
                index.typesNamed(fieldType).stream().findFirst().ifPresent(t -> f.walk.objectParameters.put(path, t));
                f.walk.discoveredParameters.add(path);
                return new Sym.Scalar(new Value.Param(path));
            }
            return Sym.free(java + " (type of " + p.name() + " not in the analyzed sources)");
        }
        return Sym.free("field " + java);
    }

    private Sym methodCall(MethodCallExpr call, Frame f) {
        String name = call.getNameAsString();
        int argc = call.getArguments().size();
        Optional<Expression> scope = call.getScope();
        if (name.equals("getParameter") && argc == 1) {
            Sym arg = eval(call.getArgument(0), f);
            if (arg instanceof Sym.Text t && t.isLiteral()) {
                f.walk.discoveredParameters.add(t.literalText());
                return new Sym.Scalar(new Value.Param(t.literalText()));
            }
            return Sym.free("request parameter with a computed name");
        }
        if (argc == 1 && CONVERSIONS.contains(name) && scope.isPresent() && scope.get() instanceof NameExpr n
                && BOXES.contains(n.getNameAsString())) {
            Sym arg = eval(call.getArgument(0), f);
            if (arg instanceof Sym.Text t && t.isLiteral()) {
                return new Sym.Scalar(name.startsWith("parse") ? Value.Constant.number(t.literalText())
                        : Value.Constant.string(t.literalText()));
            }
            if (arg instanceof Sym.Scalar s && !(s.value() instanceof Value.Free)) {
                return arg;
            }
            return arg instanceof Sym.Scalar ? arg : Sym.free(shortJava(call));
        }
        if (argc == 1 && name.equals("valueOf") && scope.isPresent() && scope.get() instanceof NameExpr n
                && n.getNameAsString().equals("String") && !isVariable("String", f)) {
            Sym arg = eval(call.getArgument(0), f);
            if (arg instanceof Sym.Text || arg instanceof Sym.Alternatives) {
                return arg; // String.valueOf(builder): the text itself
            }
        }
        if (argc == 1 && name.equals("append") && scope.isPresent()) {
            Sym appended = appendedTo(call, f);
            if (appended != null) {
                return appended;
            }
        }
        if (argc == 0 && UNBOXING.contains(name) && scope.isPresent()) {
            return eval(scope.get(), f);
        }
        if (name.equals("format") && argc >= 1 && scope.isPresent() && scope.get() instanceof NameExpr n
                && n.getNameAsString().equals("String") && !isVariable("String", f)) {
            return format(eval(call.getArgument(0), f), call.getArguments().subList(1, argc), f, shortJava(call));
        }
        if (name.equals("formatted") && scope.isPresent()) {
            return format(eval(scope.get(), f), call.getArguments(), f, shortJava(call));
        }
        if (name.equals("compile") && argc >= 1 && scope.isPresent() && scope.get() instanceof NameExpr p
                && p.getNameAsString().equals("Pattern") && !isVariable("Pattern", f)) {
            return eval(call.getArgument(0), f); // a pattern stands for its regular expression
        }
        if ((name.equals("replaceAll") || name.equals("replaceFirst")) && argc == 1 && scope.isPresent()) {
            MethodCallExpr matcher = matcherCall(scope.get(), f);
            if (matcher != null) { // PATTERN.matcher(text).replaceFirst(r) is text.replaceFirst(REGEX, r)
                return replace(name, eval(matcher.getArgument(0), f), eval(matcher.getScope().get(), f),
                        eval(call.getArgument(0), f), shortJava(call));
            }
        }
        if ((name.equals("replace") || name.equals("replaceAll") || name.equals("replaceFirst")) && argc == 2
                && scope.isPresent()) {
            return replace(name, eval(scope.get(), f), eval(call.getArgument(0), f), eval(call.getArgument(1), f),
                    shortJava(call));
        }
        if (argc == 1 && name.equals("concat") && scope.isPresent()) {
            Sym target = eval(scope.get(), f);
            if (target instanceof Sym.Text t) {
                return t.concat(eval(call.getArgument(0), f), call.getArgument(0).toString());
            }
        }
        Sym target = scope.isPresent() && !(scope.get() instanceof NameExpr n && !isVariable(n.getNameAsString(), f)
                && !index.typesNamed(n.getNameAsString()).isEmpty()) ? eval(scope.get(), f) : null;
        if (target instanceof Sym.Obj obj) {
            Sym r = returned(call, methodsOf(obj.type(), name, argc), obj, f);
            if (r == null && argc == 0 && methodsOf(obj.type(), name, 0).isEmpty() && obj.fields().containsKey(name)) {
                r = obj.fields().get(name); // a record's accessor
            }
            return r != null ? r : Sym.free("result of " + shortJava(call));
        }
        if (argc == 0 && target != null) {
            if (target instanceof Sym.Scalar s && s.value() instanceof Value.Param p
                    && f.walk.objectParameters.containsKey(p.name())) {
                String member = getterField(f.walk.objectParameters.get(p.name()), name);
                if (member != null) {
                    return member(target, member, call.toString(), f);
                }
                return Sym.free(call + " (not a plain getter of " + p.name() + ")");
            }
        }
        if (RESULT_SET_GETTER.matcher(name).matches() && argc >= 1) {
            return new Sym.Scalar(new Value.Free("value read from the database: " + shortJava(call),
                    ResultOrigins.of(call, f.method, f::at)));
        }
        if (RANDOM.contains(name) || name.toLowerCase(java.util.Locale.ROOT).contains("random")) {
            return Sym.free("random value: " + shortJava(call));
        }
        if (name.equals("currentTimeMillis") || name.equals("nanoTime") || name.equals("now")) {
            return Sym.free("clock value: " + shortJava(call));
        }
        if (f.method != null && calleeKnown(call, f)) {
            Sym r = returned(call, resolve(call, f), null, f);
            if (r != null) {
                return r;
            }
        }
        return Sym.free("result of " + shortJava(call));
    }

    // ------------------------------------------------------------------------------------------------
    // Values returned by methods of the sources, and wrapper objects

    /**
     * What a call of a method of the sources returns: its return expressions evaluated with the call's arguments (and
     * the wrapper object it runs on), one value if they agree, else the texts it may return; null when the method is
     * not known exactly (several overloads or overrides may run), has no body, or is recursive or too deep. A value
     * read from the database in the method keeps no link to its query (that link is for the caller's own reads).
     */
    private Sym returned(MethodCallExpr call, List<Callee> callees, Sym.Obj self, Frame f) {
        if (callees.size() != 1 || f.depth + 1 > MAX_DEPTH || f.onStack(callees.get(0).method())) {
            return null;
        }
        Callee callee = callees.get(0);
        List<Expression> returns = returnExpressions(callee.method());
        if (returns.isEmpty()) {
            return null;
        }
        Frame g = new Frame(callee.method(), callee.owner(), arguments(callee.method(), call.getArguments(), f), f,
                f.summary, f.walk, self);
        List<Sym> values = new ArrayList<>();
        for (Expression r : returns) {
            Sym v = eval(r, g);
            values.add(v instanceof Sym.Scalar s && s.value() instanceof Value.Free free ? Sym.free(free.why()) : v);
        }
        if (values.stream().allMatch(v -> v.equals(values.get(0)))) {
            return values.get(0);
        }
        Sym any = Sym.Alternatives.of(values);
        return any != null ? any : Sym.free("one of the values " + shortJava(call) + " returns");
    }

    /**
     * Whether the method a call runs is found by its receiver's type, not guessed by name: a call on this object, a
     * static call on a class of the sources, or a call on a variable whose declared type is a class of the sources.
     */
    private boolean calleeKnown(MethodCallExpr call, Frame f) {
        Optional<Expression> scope = call.getScope();
        if (scope.isEmpty() || scope.get() instanceof ThisExpr) {
            return true;
        }
        if (!(scope.get() instanceof NameExpr n)) {
            return false;
        }
        String var = n.getNameAsString();
        if (!isVariable(var, f)) {
            return !index.typesNamed(var).isEmpty();
        }
        Optional<String> type = declaredType(var, f);
        return type.isPresent() && !index.typesNamed(type.get()).isEmpty();
    }

    /** The expressions of a method's own return statements (not those of its lambdas or inner classes). */
    private static List<Expression> returnExpressions(CallableDeclaration<?> method) {
        if (body(method).isEmpty()) {
            return List.of();
        }
        List<Expression> out = new ArrayList<>();
        for (ReturnStmt r : body(method).get().findAll(ReturnStmt.class)) {
            Node owner = r.getParentNode().orElse(null);
            while (owner != null && !(owner instanceof CallableDeclaration) && !(owner instanceof LambdaExpr)
                    && !(owner instanceof ObjectCreationExpr)) {
                owner = owner.getParentNode().orElse(null);
            }
            if (owner == method && r.getExpression().isPresent()) {
                out.add(r.getExpression().get());
            }
        }
        return out;
    }

    private List<Callee> methodsOf(TypeInfo type, String name, int argc) {
        List<Callee> out = new ArrayList<>();
        for (TypeInfo t : index.hierarchy(type)) {
            for (MethodDeclaration m : index.methods(t)) {
                if (m.getNameAsString().equals(name) && arityMatches(m, argc)) {
                    out.add(new Callee(m, t));
                }
            }
            if (!out.isEmpty()) {
                return out; // the nearest declaration: the one this object's class runs
            }
        }
        return out;
    }

    /**
     * The elements a call passes to a varargs parameter one by one ({@code query(sql, id, name)}), or in an array
     * made where it is passed ({@code new Object[] {id, name}}); nothing for an array made elsewhere.
     */
    private Map<String, List<Value>> arrayArguments(CallableDeclaration<?> m, List<Expression> arguments, Frame f) {
        List<Expression> elements = varargsElements(m, arguments, f);
        if (elements == null) {
            return Map.of();
        }
        List<Value> values = new ArrayList<>();
        for (Expression e : elements) {
            values.add(Sym.asValue(eval(e, f)));
        }
        return Map.of(((Parameter) m.getParameters().get(m.getParameters().size() - 1)).getNameAsString(), values);
    }

    /** The elements a call passes to the method's varargs parameter, or null when it has none or they are unknown. */
    private List<Expression> varargsElements(CallableDeclaration<?> m, List<Expression> arguments, Frame f) {
        int n = m.getParameters().size();
        if (n == 0 || !((Parameter) m.getParameters().get(n - 1)).isVarArgs() || arguments.size() < n - 1) {
            return null;
        }
        List<Expression> elements = new ArrayList<>(arguments.subList(n - 1, arguments.size()));
        if (elements.size() == 1) {
            Expression only = elements.get(0);
            if (only instanceof com.github.javaparser.ast.expr.ArrayCreationExpr array) {
                if (array.getInitializer().isEmpty()) {
                    return null;
                }
                elements = array.getInitializer().get().getValues();
            } else if (only instanceof NullLiteralExpr) {
                return null; // a null array
            } else if (!(only instanceof com.github.javaparser.ast.expr.LiteralExpr)) {
                String type = staticType(only, f);
                if (type == null || type.endsWith("]") || type.equals("Object")) {
                    return null; // may be an array of any length
                }
            }
        }
        return elements;
    }

    /**
     * {@code ps = helper(...)} where the helper (of this class, a base class or another class of the sources) only
     * prepares a statement and returns it, possibly binding some placeholders first (a loop over its varargs
     * included): the statement counts here, with the helper's text and bindings and the caller's own bindings and
     * executions (a query or an update). Null for any other call, which is followed as usual.
     */
    private PreparedSite preparedByHelper(MethodCallExpr call, Position at, Frame f) {
        List<Callee> callees = resolve(call, f);
        if (callees.size() != 1 || !runsSql(callees.get(0).method()) || f.onStack(callees.get(0).method())
                || f.depth + 1 > MAX_DEPTH) {
            return null;
        }
        CallableDeclaration<?> m = callees.get(0).method();
        Frame g = new Frame(m, callees.get(0).owner(), arguments(m, call.getArguments(), f), f, f.summary, f.walk);
        g.arrays.putAll(arrayArguments(m, call.getArguments(), f));
        Prepared made = preparedAndReturned(g);
        if (made == null) {
            return null;
        }
        f.walk.visited.add(m);
        return new PreparedSite(call, assignedVariable(call), made.sql(), at, made.preset());
    }

    /** The text of a statement a helper prepares and returns, and the placeholders it binds before. */
    private record Prepared(Sym sql, Map<Integer, Value> preset) {
    }

    /**
     * What the method of the frame prepares and returns, when that is all the SQL it runs: it returns a
     * {@code prepareStatement} call, or a variable whose every value is one (in branches: {@code if (keys) ps =
     * conn.prepareStatement(sql, keys); else ps = conn.prepareStatement(sql);}, or {@code ?:}), null, a statement of a class outside
     * the sources wrapping one (taken to delegate to it), or what another such helper returns; it may bind the
     * statement's placeholders. Several texts are alternatives. Null for anything else.
     */
    private Prepared preparedAndReturned(Frame g) {
        CallableDeclaration<?> m = g.method;
        List<Expression> returns = returnExpressions(m);
        if (returns.size() != 1 || body(m).isEmpty()) {
            return null;
        }
        Expression returned = stripped(returns.get(0));
        String statement = returned instanceof NameExpr n ? n.getNameAsString() : null;
        if (statement != null && (!g.defs.declared.contains(statement) || g.defs.opaque.contains(statement))) {
            return null;
        }
        java.util.Deque<Expression> made = new java.util.ArrayDeque<>(statement == null ? List.of(returned)
                : g.defs.assignments.getOrDefault(statement, List.of()));
        List<Sym> texts = new ArrayList<>();
        Set<MethodCallExpr> preparations = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        while (!made.isEmpty()) {
            Expression e = stripped(made.pop());
            if (e instanceof NullLiteralExpr) {
                continue;
            }
            if (e instanceof ConditionalExpr choice) {
                made.push(choice.getElseExpr());
                made.push(choice.getThenExpr());
                continue;
            }
            MethodCallExpr prepare = preparation(e);
            if (prepare != null) {
                texts.add(eval(prepare.getArgument(0), g));
                preparations.add(prepare);
                continue;
            }
            List<Callee> inner = e instanceof MethodCallExpr c ? resolve(c, g) : List.of();
            if (inner.size() != 1 || g.onStack(inner.get(0).method()) || g.depth + 1 > MAX_DEPTH) {
                return null;
            }
            MethodCallExpr c = (MethodCallExpr) e;
            CallableDeclaration<?> helper = inner.get(0).method();
            Frame h = new Frame(helper, inner.get(0).owner(), arguments(helper, c.getArguments(), g), g, g.summary, g.walk);
            h.arrays.putAll(arrayArguments(helper, c.getArguments(), g));
            Prepared nested = preparedAndReturned(h);
            if (nested == null || !nested.preset().isEmpty()) {
                return null;
            }
            g.walk.visited.add(helper);
            texts.add(nested.sql());
            preparations.add(c);
        }
        if (texts.isEmpty()) {
            return null;
        }
        for (MethodCallExpr c : body(m).get().findAll(MethodCallExpr.class)) {
            String n = c.getNameAsString();
            boolean bindsIt = statement != null && SETTER.matcher(n).matches()
                    && statement.equals(statementKey(c.getScope().orElse(null)));
            if (!preparations.contains(c) && !bindsIt && (PREPARE.contains(n) || EXECUTE_SQL.contains(n)
                    || EXECUTE_PREPARED.contains(n) || !fallback(n, c.getArguments().size()).isEmpty())) {
                return null; // the helper runs more than its preparation: followed as a whole
            }
        }
        Map<Integer, Value> preset = Map.of();
        if (statement != null) {
            boolean[] computedIndex = {false};
            preset = bind(statement, null, null, settersOn(body(m).get(), statement), g, computedIndex);
            if (computedIndex[0]) {
                preset = Map.of();
                g.walk.notes.add("placeholder index computed at run time in " + m.getNameAsString() + " (" + g.at(m)
                        + "): its values are free");
            }
        }
        Sym sql = texts.stream().allMatch(t -> t.equals(texts.get(0))) ? texts.get(0) : Sym.Alternatives.of(texts);
        if (sql == null) { // one is no text: its reason stands for all
            sql = texts.stream().filter(t -> t instanceof Sym.Scalar).findFirst().orElse(Sym.free("one of the statements "
                    + m.getNameAsString() + " prepares"));
        }
        return new Prepared(sql, preset);
    }

    /** {@code x.prepareStatement(sql, ...)}, or one wrapped by {@code new W(..., x.prepareStatement(sql))} of a class outside the sources. */
    private MethodCallExpr preparation(Expression e) {
        if (e instanceof MethodCallExpr c && PREPARE.contains(c.getNameAsString()) && !c.getArguments().isEmpty()) {
            return c;
        }
        if (e instanceof ObjectCreationExpr w && index.typesNamed(w.getType().getNameAsString()).isEmpty()) {
            List<MethodCallExpr> wrapped = new ArrayList<>();
            for (Expression a : w.getArguments()) {
                MethodCallExpr p = preparation(stripped(a));
                if (p != null) {
                    wrapped.add(p);
                }
            }
            return wrapped.size() == 1 ? wrapped.get(0) : null;
        }
        return null;
    }

    /** The expression inside casts and parentheses. */
    static Expression stripped(Expression e) {
        Expression d = e;
        while (d instanceof CastExpr || d instanceof EnclosedExpr) {
            d = d instanceof CastExpr c ? c.getExpression() : ((EnclosedExpr) d).getInner();
        }
        return d;
    }

    /**
     * Placeholders bound by a helper that receives the caller's statement ({@code bind(ps, id, name)}): its
     * {@code setXxx} calls on that parameter, evaluated with the call's arguments (a loop over its varargs included),
     * count as the caller's bindings of the statement it passed, at the call. A helper that reassigns the parameter or
     * computes an index otherwise binds nothing here (the placeholders stay free).
     */
    private List<Binding> boundByHelper(MethodCallExpr call, Position at, Frame f) {
        List<Callee> callees = resolve(call, f);
        if (callees.size() != 1 || f.onStack(callees.get(0).method()) || f.depth + 1 > MAX_DEPTH
                || body(callees.get(0).method()).isEmpty()) {
            return List.of();
        }
        CallableDeclaration<?> m = callees.get(0).method();
        List<Binding> out = new ArrayList<>();
        for (int k = 0; k < m.getParameters().size() && k < call.getArguments().size(); k++) {
            Parameter p = m.getParameter(k);
            String passed = statementKey(call.getArgument(k));
            String type = SourceIndex.simpleName(p.getType());
            LocalDefs defs = defsCache.computeIfAbsent(m, LocalDefs::of);
            if (passed == null || p.isVarArgs() || !type.equals("PreparedStatement") && !type.equals("CallableStatement")
                    || defs.assignments.containsKey(p.getNameAsString()) || defs.declared.contains(p.getNameAsString())) {
                continue;
            }
            List<Binding> inner = settersOn(body(m).get(), p.getNameAsString());
            if (inner.isEmpty()) {
                continue;
            }
            Frame g = new Frame(m, callees.get(0).owner(), arguments(m, call.getArguments(), f), f, f.summary, f.walk);
            g.arrays.putAll(arrayArguments(m, call.getArguments(), f));
            boolean[] computedIndex = {false};
            Map<Integer, Value> values = bind(p.getNameAsString(), null, null, inner, g, computedIndex);
            if (!computedIndex[0]) {
                values.forEach((i, v) -> out.add(new Binding(passed, null, null, call, at, i, v)));
            }
        }
        return out;
    }

    /** The {@code var.setXxx(i, v)} calls in a method body. */
    private static List<Binding> settersOn(Node body, String var) {
        List<Binding> out = new ArrayList<>();
        for (MethodCallExpr c : body.findAll(MethodCallExpr.class)) {
            if (SETTER.matcher(c.getNameAsString()).matches() && c.getArguments().size() >= 2
                    && var.equals(statementKey(c.getScope().orElse(null)))) {
                out.add(new Binding(var, c.getArgument(0), c.getNameAsString().equals("setNull") ? null : c.getArgument(1),
                        c, c.getBegin().orElse(Position.HOME)));
            }
        }
        return out;
    }

    /**
     * The symbolic arguments of a call, by parameter name (a varargs parameter: the array of the elements passed one
     * by one, none included; else free).
     */
    private Map<String, Sym> arguments(CallableDeclaration<?> m, List<Expression> arguments, Frame f) {
        Map<String, Sym> args = new LinkedHashMap<>();
        List<Expression> elements = varargsElements(m, arguments, f);
        for (int i = 0; i < m.getParameters().size(); i++) {
            Parameter parameter = (Parameter) m.getParameters().get(i);
            String pname = parameter.getNameAsString();
            if (parameter.isVarArgs() && elements != null) {
                List<Sym> values = new ArrayList<>();
                elements.forEach(e -> values.add(eval(e, f)));
                args.put(pname, new Sym.Array(values));
                continue;
            }
            args.put(pname, i >= arguments.size() || parameter.isVarArgs()
                    ? Sym.free("parameter " + pname + " of " + m.getNameAsString()) : eval(arguments.get(i), f));
        }
        return args;
    }

    /**
     * {@code new T(...)} of a class of the sources with one constructor of that arity: an object whose fields hold
     * what the constructor assigns them once, at its top level, when nothing else can assign them afterwards (final
     * fields, or private ones the class assigns only in constructors). Null for anything else.
     */
    private Sym wrapper(ObjectCreationExpr create, Frame f) {
        List<TypeInfo> types = index.typesNamed(create.getType().getNameAsString());
        if (types.size() != 1 || create.getAnonymousClassBody().isPresent()) {
            return null;
        }
        TypeInfo type = types.get(0);
        int argc = create.getArguments().size();
        List<ConstructorDeclaration> constructors = index.constructors(type).stream()
                .filter(c -> c.getParameters().size() == argc).toList();
        if (constructors.isEmpty()) {
            constructors = index.constructors(type).stream().filter(c -> arityMatches(c, argc)).toList(); // varargs
        }
        Map<String, Sym> fields = new HashMap<>();
        if (type.declaration instanceof com.github.javaparser.ast.body.RecordDeclaration r && constructors.isEmpty()
                && r.getParameters().size() == create.getArguments().size()) {
            for (int i = 0; i < r.getParameters().size(); i++) {
                fields.put(r.getParameter(i).getNameAsString(), eval(create.getArgument(i), f)); // its components
            }
            return new Sym.Obj(type, fields);
        }
        if (constructors.size() != 1) {
            return constructors.isEmpty() && create.getArguments().isEmpty() ? new Sym.Obj(type, fields) : null;
        }
        ConstructorDeclaration c = constructors.get(0);
        if (f.depth + 1 > MAX_DEPTH || f.onStack(c)
                || !c.getBody().findAll(com.github.javaparser.ast.stmt.ExplicitConstructorInvocationStmt.class).isEmpty()) {
            return null;
        }
        Frame cf = new Frame(c, type, arguments(c, create.getArguments(), f), f, f.summary, f.walk);
        assignedFields(c, type, cf, fields);
        return new Sym.Obj(type, fields);
    }

    /**
     * The fields a constructor (or a method of its class it calls at its top level, {@code this.setSQL(sql)}) assigns
     * once at its top level, when nothing else can assign them afterwards: their values, in order.
     */
    private void assignedFields(CallableDeclaration<?> m, TypeInfo type, Frame frame, Map<String, Sym> fields) {
        BlockStmt body = body(m).orElseThrow();
        for (AssignExpr nested : body.findAll(AssignExpr.class)) {
            boolean topLevel = nested.getParentNode().orElse(null) instanceof com.github.javaparser.ast.stmt.ExpressionStmt es
                    && es.getParentNode().orElse(null) == body;
            String field = nested.getTarget() instanceof FieldAccessExpr fa && fa.getScope() instanceof ThisExpr ? fa.getNameAsString()
                    : nested.getTarget() instanceof NameExpr n ? n.getNameAsString() : null;
            if (!topLevel && field != null && !frame.args.containsKey(field) && !frame.defs.declared.contains(field)) {
                fields.remove(field); // a branch or a loop may assign it: its earlier value is not certain
            }
        }
        for (var statement : body.getStatements()) {
            if (!(statement instanceof com.github.javaparser.ast.stmt.ExpressionStmt es)) {
                continue;
            }
            if (es.getExpression() instanceof AssignExpr a && a.getOperator() == AssignExpr.Operator.ASSIGN) {
                String field = a.getTarget() instanceof FieldAccessExpr fa && fa.getScope() instanceof ThisExpr ? fa.getNameAsString()
                        : a.getTarget() instanceof NameExpr n && !frame.args.containsKey(n.getNameAsString())
                        && !frame.defs.declared.contains(n.getNameAsString()) ? n.getNameAsString() : null;
                if (field != null && fixedByConstructors(type, field, frame) && fieldAssignments(body, field, frame) == 1) {
                    fields.put(field, eval(a.getValue(), frame));
                } else if (field != null) {
                    fields.remove(field); // assigned again in a branch or a loop: not the value it had
                }
            } else if (es.getExpression() instanceof MethodCallExpr call
                    && (call.getScope().isEmpty() || call.getScope().get() instanceof ThisExpr)) {
                List<Callee> own = methodsOf(type, call.getNameAsString(), call.getArguments().size());
                if (own.size() != 1 || body(own.get(0).method()).isEmpty() || frame.onStack(own.get(0).method())
                        || frame.depth + 1 > MAX_DEPTH) {
                    continue;
                }
                CallableDeclaration<?> callee = own.get(0).method();
                Frame g = new Frame(callee, own.get(0).owner(), arguments(callee, call.getArguments(), frame), frame,
                        frame.summary, frame.walk, new Sym.Obj(type, new HashMap<>(fields)));
                assignedFields(callee, type, g, fields);
            }
        }
    }

    /**
     * A field only constructors assign: final, or private and assigned nowhere else in its class but by setters called
     * on objects picked at run time, whose replacements the {@link ReplacedSql} policy decides.
     */
    private boolean fixedByConstructors(TypeInfo type, String field, Frame f) {
        Optional<Node> declared = index.field(type, field);
        if (declared.isEmpty() || !(declared.get().getParentNode().orElse(null)
                instanceof com.github.javaparser.ast.body.FieldDeclaration decl)) {
            return false;
        }
        if (decl.isFinal()) {
            return true;
        }
        if (!decl.isPrivate()) {
            return false;
        }
        Replacements.Sites sites = replacements.of(type, field);
        if (sites == null || !sites.calls().isEmpty() && replacedSql == ReplacedSql.COMPUTED) {
            return false;
        }
        replacements.warnings(type, sites).forEach(replacedTexts::putIfAbsent);
        return true;
    }

    /** The assignments of a field in a body (not those of a parameter or local variable of the same name). */
    private static long fieldAssignments(Node body, String field, Frame frame) {
        return body.findAll(AssignExpr.class).stream().filter(a -> assigns(a, field) && !(a.getTarget() instanceof NameExpr
                && (frame.args.containsKey(field) || frame.defs.declared.contains(field)))).count();
    }

    private static boolean assigns(AssignExpr a, String field) {
        return a.getTarget() instanceof NameExpr n && n.getNameAsString().equals(field)
                || a.getTarget() instanceof FieldAccessExpr fa && fa.getNameAsString().equals(field);
    }

    /** The field a no-argument method of the type returns as is ({@code getCartId()}, {@code cartId()}). */
    private String getterField(TypeInfo type, String method) {
        for (TypeInfo t : index.hierarchy(type)) {
            if (t.declaration instanceof com.github.javaparser.ast.body.RecordDeclaration r) {
                boolean explicit = index.methods(t).stream().anyMatch(m -> m.getNameAsString().equals(method)
                        && m.getParameters().isEmpty());
                if (!explicit && r.getParameters().stream().anyMatch(p -> p.getNameAsString().equals(method))) {
                    return method;
                }
            }
            for (MethodDeclaration m : index.methods(t)) {
                if (!m.getNameAsString().equals(method) || !m.getParameters().isEmpty() || m.getBody().isEmpty()) {
                    continue;
                }
                var statements = m.getBody().get().getStatements();
                if (statements.size() == 1 && statements.get(0) instanceof ReturnStmt ret && ret.getExpression().isPresent()) {
                    Expression x = ret.getExpression().get();
                    if (x instanceof NameExpr n && index.field(t, n.getNameAsString()).isPresent()) {
                        return n.getNameAsString();
                    }
                    if (x instanceof FieldAccessExpr fa && fa.getScope() instanceof ThisExpr) {
                        return fa.getNameAsString();
                    }
                }
                return null;
            }
        }
        return null;
    }

    static String shortJava(Node e) {
        String s = e.toString().replaceAll("\\s+", " ");
        return s.length() <= 80 ? s : s.substring(0, 77) + "...";
    }
}
