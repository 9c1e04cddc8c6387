package dev.gyro.runtime.hook;

/**
 * Where a bucket move's old owner goes from its copy to its cutover (docs/decisions/43-bucket-moves.md): the copy
 * committed, and the cutover is asked for in a later round. Tests plug in here to act between the two phases; the
 * runtime's default, {@link #NONE}, asks for the cutover at once.
 *
 * <p>Contract: {@link #copied} is called on the global thread that ran the copy, inside the token's round, so it must
 * return at once; {@code cutOver} may be run later, from any thread, exactly once.
 */
public interface MoveObserver {

    /** Asks for the cutover at once. */
    MoveObserver NONE = (buckets, gsn, cutOver) -> cutOver.run();

    /** The copy of {@code buckets} committed at {@code gsn}; running {@code cutOver} asks for the cutover. */
    void copied(int[] buckets, long gsn, Runnable cutOver);
}
