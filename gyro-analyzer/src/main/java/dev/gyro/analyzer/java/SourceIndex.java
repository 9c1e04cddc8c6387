package dev.gyro.analyzer.java;

import com.github.javaparser.JavaParser;
import com.github.javaparser.ParseResult;
import com.github.javaparser.ParserConfiguration;
import com.github.javaparser.Problem;
import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.Node;
import com.github.javaparser.ast.body.BodyDeclaration;
import com.github.javaparser.ast.body.ClassOrInterfaceDeclaration;
import com.github.javaparser.ast.body.EnumDeclaration;
import com.github.javaparser.ast.body.FieldDeclaration;
import com.github.javaparser.ast.body.MethodDeclaration;
import com.github.javaparser.ast.body.Parameter;
import com.github.javaparser.ast.body.RecordDeclaration;
import com.github.javaparser.ast.body.TypeDeclaration;
import com.github.javaparser.ast.body.VariableDeclarator;
import com.github.javaparser.ast.type.ClassOrInterfaceType;
import com.github.javaparser.ast.type.Type;
import dev.gyro.analyzer.model.Diagnostic;
import dev.gyro.analyzer.model.SourceRef;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The analyzed Java sources, parsed with JavaParser at the Java 17 language level (text blocks,
 * records), and indexed by type name. No symbol solver: names are resolved by the simple rules of
 * {@link Interpreter}, and where they cannot be, conservatively.
 */
public final class SourceIndex {

    /** A type declared in the sources (top-level or nested). */
    public static final class TypeInfo {
        final String name;
        final TypeDeclaration<?> declaration;
        final Path file;
        final TypeInfo outer;
        final List<String> superTypes = new ArrayList<>();

        TypeInfo(String name, TypeDeclaration<?> declaration, Path file, TypeInfo outer) {
            this.name = name;
            this.declaration = declaration;
            this.file = file;
            this.outer = outer;
        }

        public String name() {
            return name;
        }

        public Path file() {
            return file;
        }

        /** The class's binary name, as the JVM loads it: {@code com.example.Outer$Inner}. */
        public String binaryName() {
            if (outer != null) return outer.binaryName() + "$" + name;
            String pkg = declaration.findCompilationUnit().flatMap(u -> u.getPackageDeclaration())
                    .map(d -> d.getNameAsString()).orElse("");
            return pkg.isEmpty() ? name : pkg + "." + name;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private final List<Path> javaFiles = new ArrayList<>();
    private final List<Path> sqlFiles = new ArrayList<>();
    private final Map<Path, CompilationUnit> units = new LinkedHashMap<>();
    private final Map<String, List<TypeInfo>> types = new LinkedHashMap<>();
    private final Map<TypeDeclaration<?>, TypeInfo> byDeclaration = new LinkedHashMap<>();
    private final List<Diagnostic> diagnostics = new ArrayList<>();
    private final Map<TypeInfo, List<TypeInfo>> hierarchyCache = new java.util.IdentityHashMap<>();
    private final Map<TypeInfo, List<TypeInfo>> subtypeCache = new java.util.IdentityHashMap<>();

    private SourceIndex() {
    }

    /**
     * Parses every {@code .java} file under the given paths (files or folders, recursively, hidden folders
     * skipped) and notes the {@code .sql} files. Unreadable or unparsable files are reported and skipped.
     */
    public static SourceIndex load(List<Path> paths) {
        SourceIndex index = new SourceIndex();
        Set<Path> files = new TreeSet<>();
        for (Path path : paths) {
            if (Files.isDirectory(path)) {
                try (Stream<Path> walk = Files.walk(path)) {
                    walk.filter(Files::isRegularFile)
                            .filter(p -> !hiddenBelow(path, p))
                            .forEach(files::add);
                } catch (IOException | RuntimeException e) {
                    index.diagnostics.add(Diagnostic.error(new SourceRef(path, 0), "cannot read folder: " + e.getMessage()));
                }
            } else if (Files.isRegularFile(path)) {
                String n = path.getFileName().toString();
                if (!n.endsWith(".java") && !n.endsWith(".sql")) {
                    index.diagnostics.add(Diagnostic.warning(new SourceRef(path, 0),
                            "not a .java or .sql file: ignored"));
                }
                files.add(path);
            } else {
                index.diagnostics.add(Diagnostic.error(new SourceRef(path, 0), "no such file or folder"));
            }
        }
        for (Path f : files) {
            String n = f.getFileName().toString();
            if (n.endsWith(".java")) {
                index.javaFiles.add(f);
            } else if (n.endsWith(".sql")) {
                index.sqlFiles.add(f);
            }
        }
        ParserConfiguration config = new ParserConfiguration()
                .setLanguageLevel(ParserConfiguration.LanguageLevel.JAVA_17)
                .setAttributeComments(false);
        JavaParser parser = new JavaParser(config);
        for (Path f : index.javaFiles) {
            index.parse(parser, f);
        }
        return index;
    }

    private static boolean hiddenBelow(Path root, Path file) {
        Path rel = root.relativize(file);
        for (int i = 0; i < rel.getNameCount() - 1; i++) {
            if (rel.getName(i).toString().startsWith(".")) {
                return true;
            }
        }
        return false;
    }

    private void parse(JavaParser parser, Path file) {
        ParseResult<CompilationUnit> result;
        try {
            result = parser.parse(file);
        } catch (IOException | RuntimeException | StackOverflowError e) {
            diagnostics.add(Diagnostic.error(new SourceRef(file, 0), "cannot read Java source: " + e.getMessage()));
            return;
        }
        if (!result.isSuccessful() || result.getResult().isEmpty()) {
            Problem first = result.getProblems().isEmpty() ? null : result.getProblems().get(0);
            int line = first == null ? 0 : first.getLocation()
                    .flatMap(t -> t.getBegin().getRange()).map(r -> r.begin.line).orElse(0);
            String message = first == null ? "unknown problem" : first.getMessage().lines().findFirst().orElse("");
            diagnostics.add(Diagnostic.error(new SourceRef(file, line), "cannot parse Java source: " + message
                    + " (file skipped: transactions that call into it are analyzed without its SQL)"));
            return;
        }
        CompilationUnit unit = result.getResult().get();
        units.put(file, unit);
        for (TypeDeclaration<?> type : unit.getTypes()) {
            register(type, file, null);
        }
    }

    private void register(TypeDeclaration<?> type, Path file, TypeInfo outer) {
        TypeInfo info = new TypeInfo(type.getNameAsString(), type, file, outer);
        if (type instanceof ClassOrInterfaceDeclaration c) {
            c.getExtendedTypes().forEach(t -> info.superTypes.add(t.getNameAsString()));
            c.getImplementedTypes().forEach(t -> info.superTypes.add(t.getNameAsString()));
        } else if (type instanceof EnumDeclaration e) {
            e.getImplementedTypes().forEach(t -> info.superTypes.add(t.getNameAsString()));
        } else if (type instanceof RecordDeclaration r) {
            r.getImplementedTypes().forEach(t -> info.superTypes.add(t.getNameAsString()));
        }
        types.computeIfAbsent(info.name, k -> new ArrayList<>()).add(info);
        byDeclaration.put(type, info);
        for (BodyDeclaration<?> member : type.getMembers()) {
            if (member instanceof TypeDeclaration<?> nested) {
                register(nested, file, info);
            }
        }
    }

    public List<Diagnostic> diagnostics() {
        return diagnostics;
    }

    public Map<Path, CompilationUnit> units() {
        return units;
    }

    public List<Path> sqlFiles() {
        return sqlFiles;
    }

    public int javaFileCount() {
        return javaFiles.size();
    }

    public List<TypeInfo> allTypes() {
        return new ArrayList<>(byDeclaration.values());
    }

    public List<TypeInfo> typesNamed(String simpleName) {
        return types.getOrDefault(simpleName, List.of());
    }

    public Optional<TypeInfo> typeOf(Node node) {
        Node cur = node;
        while (cur != null) {
            if (cur instanceof TypeDeclaration<?> t) {
                return Optional.ofNullable(byDeclaration.get(t));
            }
            cur = cur.getParentNode().orElse(null);
        }
        return Optional.empty();
    }

    /** The simple name of a type as written ({@code java.sql.Connection} gives {@code Connection}). */
    public static String simpleName(Type type) {
        if (type instanceof ClassOrInterfaceType c) {
            return c.getNameAsString();
        }
        return type.asString();
    }

    /** The type and its supertypes declared in the sources, nearest first. */
    public List<TypeInfo> hierarchy(TypeInfo type) {
        return hierarchyCache.computeIfAbsent(type, t -> {
            List<TypeInfo> out = new ArrayList<>();
            collectSupers(t, out, new LinkedHashSet<>());
            return List.copyOf(out);
        });
    }

    private void collectSupers(TypeInfo type, List<TypeInfo> out, Set<TypeInfo> seen) {
        if (!seen.add(type)) {
            return;
        }
        out.add(type);
        for (String s : type.superTypes) {
            for (TypeInfo t : typesNamed(s)) {
                collectSupers(t, out, seen);
            }
        }
    }

    /** The types of the sources that extend or implement the given one, transitively (virtual calls). */
    public List<TypeInfo> subtypes(TypeInfo type) {
        return subtypeCache.computeIfAbsent(type, ty -> {
            List<TypeInfo> out = new ArrayList<>();
            for (TypeInfo t : byDeclaration.values()) {
                if (t != ty && hierarchy(t).contains(ty)) {
                    out.add(t);
                }
            }
            return List.copyOf(out);
        });
    }

    /** Whether the type, or one of its supertypes in the sources, names the given supertype. */
    public boolean extendsOrImplements(TypeInfo type, String... simpleNames) {
        for (TypeInfo t : hierarchy(type)) {
            for (String s : t.superTypes) {
                String simple = s.contains(".") ? s.substring(s.lastIndexOf('.') + 1) : s;
                for (String n : simpleNames) {
                    if (n.equals(simple)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    public List<com.github.javaparser.ast.body.ConstructorDeclaration> constructors(TypeInfo type) {
        List<com.github.javaparser.ast.body.ConstructorDeclaration> out = new ArrayList<>();
        for (BodyDeclaration<?> member : type.declaration.getMembers()) {
            if (member instanceof com.github.javaparser.ast.body.ConstructorDeclaration c) {
                out.add(c);
            }
        }
        return out;
    }

    public List<MethodDeclaration> methods(TypeInfo type) {
        List<MethodDeclaration> out = new ArrayList<>();
        for (BodyDeclaration<?> member : type.declaration.getMembers()) {
            if (member instanceof MethodDeclaration m) {
                out.add(m);
            }
        }
        return out;
    }

    /** A field (or record component) declared in the type or its supertypes: its declarator or parameter. */
    public Optional<Node> field(TypeInfo type, String name) {
        for (TypeInfo t : hierarchy(type)) {
            for (BodyDeclaration<?> member : t.declaration.getMembers()) {
                if (member instanceof FieldDeclaration f) {
                    for (VariableDeclarator v : f.getVariables()) {
                        if (v.getNameAsString().equals(name)) {
                            return Optional.of(v);
                        }
                    }
                }
            }
            if (t.declaration instanceof RecordDeclaration r) {
                for (Parameter p : r.getParameters()) {
                    if (p.getNameAsString().equals(name)) {
                        return Optional.of(p);
                    }
                }
            }
        }
        return Optional.empty();
    }

    /** The line where a node begins, 0 if unknown. */
    public static int line(Node node) {
        return node.getBegin().map(p -> p.line).orElse(0);
    }
}
