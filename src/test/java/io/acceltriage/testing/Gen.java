package io.acceltriage.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A generator of test cases from a seeded {@link Random}: the few combinators the bad-input
 * properties need, and {@link #forAll}, which runs a property over many cases and names the one that
 * fails with the seed that brings it back. Deterministic for a given seed, so a failure in CI is a
 * failure on every machine.
 */
@FunctionalInterface
public interface Gen<T> {

    T next(Random random);

    default <R> Gen<R> map(Function<? super T, ? extends R> f) {
        return r -> f.apply(next(r));
    }

    default <R> Gen<R> flatMap(Function<? super T, Gen<? extends R>> f) {
        return r -> f.apply(next(r)).next(r);
    }

    /** Only values {@code keep} accepts; gives up (loudly) when it accepts too few to be useful. */
    default Gen<T> filter(Predicate<? super T> keep) {
        return r -> {
            for (int i = 0; i < 1000; i++) {
                T v = next(r);
                if (keep.test(v)) return v;
            }
            throw new IllegalStateException("the filter rejected 1000 values in a row: generate what you want instead");
        };
    }

    default Gen<List<T>> list(int min, int max) {
        return r -> {
            int n = min + r.nextInt(max - min + 1);
            List<T> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) out.add(next(r));
            return out;
        };
    }

    /** {@code n} values, the same ones for the same seed. */
    default List<T> sample(long seed, int n) {
        Random r = new Random(seed);
        List<T> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) out.add(next(new Random(r.nextLong())));
        return out;
    }

    @SafeVarargs
    static <T> Gen<T> of(T... values) {
        return of(java.util.Arrays.asList(values));
    }

    static <T> Gen<T> of(List<T> values) {
        List<T> copy = java.util.Collections.unmodifiableList(new ArrayList<>(values)); // nulls allowed: "absent" is a case
        return r -> copy.get(r.nextInt(copy.size()));
    }

    @SafeVarargs
    static <T> Gen<T> oneOf(Gen<? extends T>... gens) {
        return r -> gens[r.nextInt(gens.length)].next(r);
    }

    /** A generator with a weight, for {@link #frequency}. */
    record Weighted<T>(int weight, Gen<? extends T> gen) {}

    static <T> Weighted<T> weight(int weight, Gen<? extends T> gen) {
        return new Weighted<>(weight, gen);
    }

    @SafeVarargs
    static <T> Gen<T> frequency(Weighted<T>... choices) {
        int total = 0;
        for (Weighted<T> w : choices) total += w.weight();
        int sum = total;
        return r -> {
            int pick = r.nextInt(sum);
            for (Weighted<T> w : choices) {
                pick -= w.weight();
                if (pick < 0) return w.gen().next(r);
            }
            throw new AssertionError("unreachable");
        };
    }

    /** Inclusive bounds. */
    static Gen<Integer> between(int min, int max) {
        return r -> min + (int) (r.nextDouble() * ((long) max - min + 1));
    }

    static Gen<Long> longs() {
        return oneOf(Random::nextLong, of(0L, -1L, 1L, Long.MIN_VALUE, Long.MAX_VALUE, (long) Integer.MIN_VALUE,
                (long) Integer.MAX_VALUE + 1));
    }

    /** Any UTF-16 string, biased towards the characters that break parsers, escapes and databases. */
    static Gen<String> strings(int minLength, int maxLength) {
        Gen<Character> special = of('\u0000', '\u0001', '\n', '\r', '\t', '"', '\'', '\\', '/', '%', '&', '=', '+', '<', '>', '{',
                '}', '[', ']', ',', ':', '\u007f', '\u0085', '\u00e9', '\u2028', '\u202e', '\ufeff', '\ufffd', '\uffff', '\ud800',
                '\udfff', ' ');
        Gen<Character> any = r -> (char) r.nextInt(Character.MAX_VALUE + 1);
        Gen<Character> ascii = r -> (char) (0x20 + r.nextInt(0x5f));
        Gen<Character> ch = frequency(weight(3, ascii), weight(1, special), weight(1, any));
        return r -> {
            int n = minLength + r.nextInt(maxLength - minLength + 1);
            StringBuilder sb = new StringBuilder(n);
            for (int i = 0; i < n; i++) sb.append(ch.next(r));
            return sb.toString();
        };
    }

    /** Printable ASCII only. */
    static Gen<String> ascii(int minLength, int maxLength) {
        return r -> {
            int n = minLength + r.nextInt(maxLength - minLength + 1);
            StringBuilder sb = new StringBuilder(n);
            for (int i = 0; i < n; i++) sb.append((char) (0x21 + r.nextInt(0x5e)));
            return sb.toString();
        };
    }

    static Gen<byte[]> bytes(int maxLength) {
        return r -> {
            byte[] b = new byte[r.nextInt(maxLength + 1)];
            r.nextBytes(b);
            return b;
        };
    }

    /**
     * Checks {@code property} on {@code tries} cases drawn from {@code gen}. A failure names the case,
     * shown by {@code show}, and the case's own seed: {@code gen.next(new Random(caseSeed))} is that case again.
     */
    static <T> void forAll(long seed, int tries, Gen<T> gen, Function<? super T, String> show, Consumer<? super T> property) {
        Random seeds = new Random(seed);
        for (int i = 0; i < tries; i++) {
            long caseSeed = seeds.nextLong();
            T value = gen.next(new Random(caseSeed));
            try {
                property.accept(value);
            } catch (Throwable t) {
                String shown;
                try {
                    shown = show.apply(value);
                } catch (RuntimeException e) {
                    shown = String.valueOf(value);
                }
                throw new AssertionError("case " + i + " of " + tries + " (seed " + seed + ", case seed " + caseSeed + ") fails: "
                        + t + "\n  input: " + shown, t);
            }
        }
    }
}
