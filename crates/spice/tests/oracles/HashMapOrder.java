// Prints the order in which java.util.HashMap iterates keys with given hash codes. One case a
// line on standard input: the table size, then the keys' hash codes in insertion order; one line
// out per case: the keys' insertion indices in iteration order. The map is created with that
// initial capacity (never resized: the cases hold fewer keys than three quarters of it).
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.HashMap;
import java.util.Map;
import java.util.StringJoiner;

public class HashMapOrder {
    static final class Key {
        final int hash;
        final int index;
        Key(int hash, int index) { this.hash = hash; this.index = index; }
        @Override public int hashCode() { return hash; }
        @Override public boolean equals(Object o) { return o instanceof Key && ((Key) o).index == index; }
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.trim().split(" ");
            int cap = Integer.parseInt(f[0]);
            Map<Key, Boolean> map = new HashMap<>(cap);
            for (int i = 1; i < f.length; i++) {
                map.put(new Key(Integer.parseInt(f[i]), i - 1), true);
            }
            StringJoiner out = new StringJoiner(" ");
            for (Key k : map.keySet()) {
                out.add(Integer.toString(k.index));
            }
            System.out.println(out);
        }
    }
}
