package dev.gyro.analyzer.java;

/**
 * What the analysis takes for an SQL text that a setter may replace at run time on a statement picked by code outside
 * the sources (a benchmark kit loading per-vendor dialect files): the text the statement is made with, with a warning
 * naming the setter call ({@link #DECLARED}, the default), or computed SQL ({@link #COMPUTED}).
 * docs/decisions/33-declared-sql-texts.md says why.
 */
public enum ReplacedSql { DECLARED, COMPUTED }
