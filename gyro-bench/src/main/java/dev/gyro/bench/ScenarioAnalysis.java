package dev.gyro.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * What a scenario's points say side by side (docs/benchmark-method.md: ratios measured in one run, never a
 * bare absolute): each system's peak per setting, each point's counterpart in another system, ratios, and the
 * paper's numbers computed from this run.
 *
 * <p>Ratios read "higher is better for the system named first": {@code throughput} = this system's / the other's;
 * {@code meanLatency} and {@code p99Latency} = the other's / this system's.
 *
 * <p>A system measured at only some settings of a group (the centralized database at one instance, in a sweep over
 * instances) is the <em>reference</em> of that group: a point without a counterpart at its own setting is compared
 * with the reference's point at the same load.
 */
public final class ScenarioAnalysis {

    private final Scenario scenario;
    private final List<Measured> points;

    public ScenarioAnalysis(Scenario scenario, List<Measured> points) {
        this.scenario = scenario;
        this.points = List.copyOf(points);
    }

    public List<Measured> points() {
        return points;
    }

    /** The points that ran. */
    public List<Measured> ran() {
        return points.stream().filter(Measured::ran).toList();
    }

    /** The load of a point: its client count or its open-loop rate. */
    public Object load(Measured m) {
        return m.parameter(scenario.load().parameter());
    }

    /** What the load is counted in: {@code clients}, or an open loop's {@code rate}. */
    public String loadParameter() {
        return scenario.load().parameter();
    }

    private String group(String settingId) {
        return scenario.setting(settingId).group();
    }

    /** Settings of the same group as {@code settingId}, in the scenario's order. */
    public List<Scenario.Setting> groupOf(String settingId) {
        String g = group(settingId);
        return scenario.settings().stream().filter(s -> Objects.equals(s.group(), g)).toList();
    }

    /** The groups, in order of first appearance (a single null group when settings have none). */
    public List<String> groups() {
        List<String> out = new ArrayList<>();
        for (Scenario.Setting s : scenario.settings()) if (!out.contains(s.group())) out.add(s.group());
        return out;
    }

    /** {@code system}'s point at that setting and load, or null. */
    public Measured at(String settingId, String system, Object load) {
        for (Measured m : points)
            if (m.setting().equals(settingId) && m.system().equals(system) && m.ran() && Objects.equals(load(m), load))
                return m;
        return null;
    }

    /**
     * Where to find {@code system}'s points to compare with {@code settingId}'s: that setting when the system is
     * measured there (null if none of its points ran); otherwise the first setting of the group where it ran, its
     * reference. A system that was meant to run at a setting and could not is never replaced by its reference.
     */
    public String referenceSetting(String settingId, String system) {
        if (scenario.systemsAt(scenario.setting(settingId)).contains(system))
            return points.stream().anyMatch(m -> m.setting().equals(settingId) && m.system().equals(system) && m.ran())
                    ? settingId : null;
        for (Scenario.Setting s : groupOf(settingId))
            if (points.stream().anyMatch(m -> m.setting().equals(s.id()) && m.system().equals(system) && m.ran()))
                return s.id();
        return null;
    }

    /** {@code other}'s point to compare {@code m} with: same setting and load, else the group's reference. */
    public Measured counterpart(Measured m, String other) {
        String where = referenceSetting(m.setting(), other);
        return where == null ? null : at(where, other, load(m));
    }

    /** The valid point of highest throughput whose mean latency is under the bound, or null. */
    public Measured peak(String settingId, String system) {
        Measured best = null;
        for (Measured m : points) {
            if (!m.setting().equals(settingId) || !m.system().equals(system) || !m.ran() || !m.valid()) continue;
            if (m.all().meanMs() > scenario.bound().meanMs()) continue;
            if (best == null || m.throughput() > best.throughput()) best = m;
        }
        return best;
    }

    /** {@code system}'s peak at the setting, or at the group's reference setting when it did not run there. */
    public Measured peakOrReference(String settingId, String system) {
        String where = referenceSetting(settingId, system);
        return where == null ? null : peak(where, system);
    }

    /** Ratios of {@code m} against every other system at the same setting and load (or the reference). */
    public Map<String, Map<String, Object>> ratios(Measured m) {
        Map<String, Map<String, Object>> out = new LinkedHashMap<>();
        if (!m.ran() || !m.valid()) return out;
        for (String other : scenario.allSystems()) {
            if (other.equals(m.system())) continue;
            Measured o = counterpart(m, other);
            if (o == null || !o.valid()) continue;
            Map<String, Object> r = ratio(m, o);
            if (!o.setting().equals(m.setting())) r.put("setting", o.setting());
            out.put(other, r);
        }
        return out;
    }

    static Map<String, Object> ratio(Measured m, Measured other) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("throughput", other.throughput() > 0 ? m.throughput() / other.throughput() : null);
        r.put("meanLatency", m.all().meanMs() > 0 ? other.all().meanMs() / m.all().meanMs() : null);
        r.put("p99Latency", m.all().p99Ms() > 0 ? other.all().p99Ms() / m.all().p99Ms() : null);
        return r;
    }

    /** One of the paper's numbers beside ours; {@code ours} is null when this run has nothing to compute it from. */
    public record PaperValue(Scenario.PaperRatio ratio, Double ours, String at) {
        public String oursText() {
            return ours == null ? "not measured" : String.format(Locale.ROOT, "%.2fx", ours);
        }
    }

    private static boolean matches(Scenario.Setting s, Map<String, Object> where) {
        for (Map.Entry<String, Object> e : where.entrySet()) {
            Object v = s.parameters().get(e.getKey());
            if (v == null || !String.valueOf(v).equals(String.valueOf(e.getValue()))) return false;
        }
        return true;
    }

    public List<PaperValue> paperValues() {
        List<PaperValue> out = new ArrayList<>();
        for (Scenario.PaperRatio p : scenario.paper()) out.add(paperValue(p));
        return out;
    }

    private PaperValue paperValue(Scenario.PaperRatio p) {
        Double best = null;
        String at = null;
        for (Scenario.Setting s : scenario.settings()) {
            if (!matches(s, p.where())) continue;
            String baselineSetting = p.baselineWhere() == null ? null : groupOf(s.id()).stream()
                    .filter(b -> matches(b, p.baselineWhere())).map(Scenario.Setting::id).findFirst().orElse(null);
            if (p.baselineWhere() != null && baselineSetting == null) continue;
            switch (p.metric()) {
                case PEAK_THROUGHPUT -> {
                    Measured a = peak(s.id(), p.system());
                    Measured b = baselineSetting != null ? peak(baselineSetting, p.baseline())
                            : peakOrReference(s.id(), p.baseline());
                    if (a == null || b == null || b.throughput() <= 0) continue;
                    double r = a.throughput() / b.throughput();
                    if (best == null || r > best) {
                        best = r;
                        at = s.id() + " (" + load(a) + " vs " + load(b) + " " + scenario.load().parameter() + ")";
                    }
                }
                case LIGHT_LOAD_LATENCY, LATENCY_AT_SAME_LOAD -> {
                    int levels = p.metric() == Scenario.Metric.LIGHT_LOAD_LATENCY ? 1 : scenario.load().levels();
                    for (int level = 0; level < levels; level++) {
                        Object load = scenario.load().parameters(level).get(scenario.load().parameter());
                        Measured a = at(s.id(), p.system(), load);
                        String bs = baselineSetting != null ? baselineSetting : referenceSetting(s.id(), p.baseline());
                        Measured b = bs == null ? null : at(bs, p.baseline(), load);
                        if (a == null || b == null || !a.valid() || !b.valid() || a.all().meanMs() <= 0) continue;
                        double r = b.all().meanMs() / a.all().meanMs();
                        if (best == null || r > best) {
                            best = r;
                            at = s.id() + ", " + scenario.load().describe(level);
                        }
                    }
                }
            }
        }
        return new PaperValue(p, best, at);
    }
}
