// Test oracle (never shipped): what METEOR 1.5 makes of each line read from standard input under
// `-l en -norm`: the line normalised as MeteorScorer does (Normalizer, punctuation kept, then
// lowercased), a tab, and the Snowball English stem of each of its words, space-separated.
// Run: java -cp meteor-1.5.jar MeteorNormalizer.java < lines
import edu.cmu.meteor.aligner.SnowballStemmerWrapper;
import edu.cmu.meteor.util.Constants;
import edu.cmu.meteor.util.Normalizer;
import java.io.*;

public class MeteorNormalizer {
    public static void main(String[] args) throws Exception {
        SnowballStemmerWrapper stemmer = new SnowballStemmerWrapper(new org.tartarus.snowball.ext.englishStemmer());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out, "UTF-8")));
        String line;
        while ((line = in.readLine()) != null) {
            String norm = Normalizer.normalizeLine(line, Constants.LANG_EN, true).toLowerCase();
            out.print(norm);
            out.print('\t');
            boolean first = true;
            for (String w : norm.split(" ")) {
                if (w.isEmpty()) continue;
                if (!first) out.print(' ');
                out.print(stemmer.stem(w));
                first = false;
            }
            out.println();
        }
        out.flush();
    }
}
