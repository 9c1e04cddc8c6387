package dev.gyro.runtime.db;

/** The three shapes of write that row-image capture handles (REPLACE and upserts are INSERTs). */
public enum WriteKind { INSERT, UPDATE, DELETE }
