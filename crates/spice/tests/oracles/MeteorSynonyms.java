// Test oracle (never shipped): prints what METEOR 1.5's SynonymDictionary returns for each word
// read from standard input, one line per word: "word<TAB>synsets<TAB>stem synsets", each set
// sorted ascending and space-separated.
// Run: java -cp meteor-1.5.jar MeteorSynonyms.java SYNONYM_DIR < words
import edu.cmu.meteor.aligner.SynonymDictionary;
import java.io.*;
import java.net.URL;
import java.util.*;

public class MeteorSynonyms {
    static String sorted(Set<Integer> s) {
        List<Integer> l = new ArrayList<>(s);
        Collections.sort(l);
        StringBuilder b = new StringBuilder();
        for (Integer i : l) { if (b.length() > 0) b.append(' '); b.append(i); }
        return b.toString();
    }

    public static void main(String[] args) throws Exception {
        File dir = new File(args[0]);
        SynonymDictionary d = new SynonymDictionary(
            new File(dir, "english.exceptions").toURI().toURL(),
            new File(dir, "english.synsets").toURI().toURL(),
            new File(dir, "english.relations").toURI().toURL());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out, "UTF-8")));
        String w;
        while ((w = in.readLine()) != null) {
            out.print(w); out.print('\t');
            out.print(sorted(d.getSynSets(w))); out.print('\t');
            out.println(sorted(d.getStemSynSets(w)));
        }
        out.flush();
    }
}
