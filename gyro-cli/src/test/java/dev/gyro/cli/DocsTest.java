package dev.gyro.cli;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import picocli.CommandLine;

import javax.xml.parsers.DocumentBuilderFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The repository explains itself truly: the README stays a front page (at most about 250 lines), every relative link
 * of the README and of the pages under docs/ and bench-results/ reaches a file (and a heading, where it names one),
 * every {@code gyro} command shown in them exists with the options shown, and docs/architecture.md's module table
 * says what each module's pom says it depends on.
 */
class DocsTest {

    /** The repository's root: the tests run in gyro-cli. */
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    static final int README_MAX_LINES = 260;

    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
    private static final Pattern INLINE_CODE = Pattern.compile("`([^`\\n]+)`");
    private static final Pattern COMMAND = Pattern.compile("(?:^|[\\s(;&|])(?:\\./)?gyro((?:\\s+[^\\s#|;&)]+)*)");

    /** The Markdown pages a user reads: the README, CONTRIBUTING, docs/ and the lab notebook's front pages. */
    static List<Path> pages() throws IOException {
        List<Path> out = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CONTRIBUTING.md")));
        for (String dir : List.of("docs", "bench-results"))
            try (Stream<Path> s = Files.walk(ROOT.resolve(dir))) {
                s.filter(p -> p.toString().endsWith(".md")).sorted().forEach(out::add);
            }
        return out;
    }

    @Test
    void theReadmeIsAFrontPage() throws IOException {
        List<String> lines = Files.readAllLines(ROOT.resolve("README.md"));
        assertThat(lines.size()).as("README.md's lines (a front page: the rest belongs in docs/ and bench-results/)")
                .isLessThanOrEqualTo(README_MAX_LINES);
        String text = String.join("\n", lines);
        assertThat(text.indexOf("./gyro demo")).as("the README shows ./gyro demo, then ./gyro test, first")
                .isPositive().isLessThan(text.indexOf("./gyro test"));
    }

    @Test
    void everyRelativeLinkReachesAFileAndItsHeading() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path page : pages()) {
            List<String> lines = Files.readAllLines(page);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = LINK.matcher(lines.get(i));
                while (m.find()) {
                    String target = m.group(1);
                    if (target.matches("^[a-z]+:.*")) continue; // http:, https:, mailto:
                    String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
                    String anchor = target.contains("#") ? target.substring(target.indexOf('#') + 1) : null;
                    Path to = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                    String where = ROOT.relativize(page) + ":" + (i + 1) + ": " + target;
                    if (!Files.exists(to)) broken.add(where + " (no such file)");
                    else if (anchor != null && to.toString().endsWith(".md") && !anchors(to).contains(anchor))
                        broken.add(where + " (no such heading in " + ROOT.relativize(to) + ")");
                }
            }
        }
        assertThat(broken).as("links that lead nowhere").isEmpty();
    }

    /** GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as hyphens. */
    static Set<String> anchors(Path page) throws IOException {
        Set<String> out = new TreeSet<>();
        for (String line : Files.readAllLines(page)) {
            if (!line.startsWith("#")) continue;
            String title = line.replaceFirst("^#+\\s*", "").toLowerCase(Locale.ROOT);
            out.add(title.replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
        }
        return out;
    }

    @Test
    void everyCommandShownExistsWithTheOptionsShown() throws IOException {
        CommandLine gyro = Gyro.commandLine();
        String launcher = Files.readString(ROOT.resolve("gyro"));
        List<String> wrong = new ArrayList<>();
        int checked = 0;
        for (Path page : pages()) {
            if (page.startsWith(ROOT.resolve("bench-results"))) continue; // the notebook keeps commands of its day
            List<String> lines = Files.readAllLines(page);
            boolean fenced = false;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (line.startsWith("```")) {
                    fenced = !fenced;
                    continue;
                }
                List<String> code = new ArrayList<>();
                if (fenced) code.add(line);
                else for (Matcher m = INLINE_CODE.matcher(line); m.find(); ) code.add(m.group(1));
                for (String c : code)
                    for (Matcher m = COMMAND.matcher(c); m.find(); ) {
                        String problem = check(gyro, launcher, m.group(1).trim());
                        checked++;
                        if (problem != null) wrong.add(ROOT.relativize(page) + ":" + (i + 1) + ": gyro " + m.group(1).trim()
                                + ": " + problem);
                    }
            }
        }
        assertThat(checked).as("gyro commands found in the pages").isGreaterThan(20);
        assertThat(wrong).as("commands the pages show that gyro does not have").isEmpty();
    }

    /** Null if {@code args} (after "gyro") names commands and options that exist; else what is wrong. */
    static String check(CommandLine gyro, String launcher, String args) {
        String[] tokens = args.isEmpty() ? new String[0] : args.split("\\s+");
        if (tokens.length > 0 && tokens[0].equals("test")) { // the launcher's own: ./gyro test [--fast]
            for (int t = 1; t < tokens.length; t++)
                if (tokens[t].startsWith("--") && !launcher.contains("\"" + tokens[t] + "\""))
                    return "the launcher's test has no option " + tokens[t];
            return null;
        }
        CommandLine cmd = gyro;
        int t = 0;
        for (; t < tokens.length && !tokens[t].startsWith("-"); t++) {
            CommandLine sub = cmd.getSubcommands().get(tokens[t]);
            if (sub == null) break; // a positional argument (or a placeholder such as PATH)
            cmd = sub;
        }
        if (cmd == gyro && tokens.length > 0 && !tokens[0].startsWith("-") && !tokens[0].matches("[A-Z.\\[<].*"))
            return "no command '" + tokens[0] + "'";
        for (; t < tokens.length; t++) {
            String tok = tokens[t];
            if (!tok.startsWith("--")) continue;
            String name = tok.contains("=") ? tok.substring(0, tok.indexOf('=')) : tok;
            name = name.replaceAll("[^\\w-]+$", ""); // "--fast," or "--help)" in prose
            if (tok.equals("--")) break; // what follows is the command's operands (gyro attach: the application's command line)
            if (name.equals("--")) continue;
            if (cmd.getCommandSpec().findOption(name) == null)
                return "'" + cmd.getCommandSpec().qualifiedName() + "' has no option " + name;
        }
        return null;
    }

    @Test
    void theArchitecturesModuleTableIsWhatThePomsSay() throws Exception {
        Map<String, Set<String>[]> documented = new LinkedHashMap<>();
        Pattern row = Pattern.compile("^\\| `(gyro-[a-z-]+)` \\|.*\\| ([^|]*) \\| ([^|]*) \\|\\s*$");
        for (String line : Files.readAllLines(ROOT.resolve("docs/architecture.md"))) {
            Matcher m = row.matcher(line);
            if (m.matches()) {
                @SuppressWarnings("unchecked")
                Set<String>[] deps = new Set[] {names(m.group(2)), names(m.group(3))};
                documented.put(m.group(1), deps);
            }
        }
        List<String> modules = children(ROOT.resolve("pom.xml"), "modules", "module");
        assertThat(documented.keySet()).as("the modules docs/architecture.md lists, against the root pom's")
                .containsExactlyInAnyOrderElementsOf(modules);
        for (String module : modules) {
            Set<String> gyroDeps = new TreeSet<>(), libraries = new TreeSet<>();
            for (Element d : dependencies(ROOT.resolve(module).resolve("pom.xml"))) {
                String scope = text(d, "scope");
                if ("test".equals(scope)) continue;
                String artifact = text(d, "artifactId");
                (artifact.startsWith("gyro-") ? gyroDeps : libraries).add(artifact);
            }
            assertThat(documented.get(module)[0]).as(module + ": the Gyro modules it depends on (its pom)")
                    .isEqualTo(gyroDeps);
            assertThat(documented.get(module)[1]).as(module + ": the libraries it depends on (its pom)")
                    .isEqualTo(libraries);
        }
    }

    /** The backticked names of a table cell ("`gyro-protocol`, `grpc-api`"); "none" is none. */
    static Set<String> names(String cell) {
        Set<String> out = new TreeSet<>();
        for (Matcher m = INLINE_CODE.matcher(cell); m.find(); ) out.add(m.group(1));
        return out;
    }

    static List<String> children(Path pom, String parent, String child) throws Exception {
        var doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
        List<String> out = new ArrayList<>();
        NodeList parents = doc.getDocumentElement().getChildNodes();
        for (int i = 0; i < parents.getLength(); i++) {
            Node p = parents.item(i);
            if (!parent.equals(p.getNodeName())) continue;
            NodeList kids = p.getChildNodes();
            for (int k = 0; k < kids.getLength(); k++)
                if (child.equals(kids.item(k).getNodeName())) out.add(kids.item(k).getTextContent().trim());
        }
        return out;
    }

    /** The project's own dependencies (not dependencyManagement's). */
    static List<Element> dependencies(Path pom) throws Exception {
        var doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
        List<Element> out = new ArrayList<>();
        NodeList top = doc.getDocumentElement().getChildNodes();
        for (int i = 0; i < top.getLength(); i++) {
            if (!"dependencies".equals(top.item(i).getNodeName())) continue;
            NodeList deps = top.item(i).getChildNodes();
            for (int k = 0; k < deps.getLength(); k++)
                if (deps.item(k) instanceof Element e && "dependency".equals(e.getNodeName())) out.add(e);
        }
        return out;
    }

    static String text(Element e, String child) {
        NodeList l = e.getElementsByTagName(child);
        return l.getLength() == 0 ? null : l.item(0).getTextContent().trim();
    }
}
