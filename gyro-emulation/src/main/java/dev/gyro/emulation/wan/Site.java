package dev.gyro.emulation.wan;

/**
 * The five sites of the paper's WAN experiments (Section VII-A), in the order the paper adds them: "a configuration
 * with three locations consists of servers in G, J, and US".
 */
public enum Site {
    GERMANY("G", "Germany"),
    JAPAN("J", "Japan"),
    US_EAST("US", "US east"),
    BRAZIL("B", "Brazil"),
    AUSTRALIA("A", "Australia");

    private final String abbreviation;
    private final String displayName;

    Site(String abbreviation, String displayName) {
        this.abbreviation = abbreviation;
        this.displayName = displayName;
    }

    /** The paper's abbreviation (Table II): G, J, US, B, A. */
    public String abbreviation() {
        return abbreviation;
    }

    /** The site's name in words, for reports. */
    public String displayName() {
        return displayName;
    }

    /** The site with this abbreviation (case-insensitive). */
    public static Site byAbbreviation(String abbreviation) {
        for (Site s : values()) if (s.abbreviation.equalsIgnoreCase(abbreviation.strip())) return s;
        throw new IllegalArgumentException("no site is abbreviated '" + abbreviation + "' (the paper's sites: G, J, US, B, A)");
    }
}
