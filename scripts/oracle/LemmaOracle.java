// Lemmatizer oracle: Stanford CoreNLP's Morphology, called the way its MorphaAnnotator calls it.
//
//   java -cp "$SPICEBOARD_DATA/stanford-corenlp-3.4.1.jar" scripts/oracle/LemmaOracle.java < pairs.tsv
//
// Reads UTF-8 lines "word<TAB>tag" on stdin and prints one lemma per line on stdout. An empty tag
// means "no tag" (the annotator then stems the bare word). Used by the lemmatizer parity test
// (crates/spice/tests/lemmatizer_parity.rs) and scripts/lemma-parity; never at run time.
import edu.stanford.nlp.pipeline.MorphaAnnotator;
import edu.stanford.nlp.process.Morphology;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;

public class LemmaOracle {
  public static void main(String[] args) throws Exception {
    Morphology morpha = new Morphology();
    // The annotator's phrasal-verb step ("pick_up"/VB -> "pick_up") is private: reach it as is.
    Method phrasal = MorphaAnnotator.class.getDeclaredMethod(
        "phrasalVerb", Morphology.class, String.class, String.class);
    phrasal.setAccessible(true);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    BufferedWriter out =
        new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8), 1 << 16);
    String line;
    int lineNo = 0;
    while ((line = in.readLine()) != null) {
      lineNo++;
      int tab = line.indexOf('\t');
      if (tab < 0) {
        System.err.println("LemmaOracle: line " + lineNo + " has no tab: " + line);
        System.exit(1);
      }
      String word = line.substring(0, tab);
      String tag = line.substring(tab + 1);
      String lemma;
      if (tag.isEmpty()) {
        lemma = morpha.stem(word);
      } else {
        String pv = (String) phrasal.invoke(null, morpha, word, tag);
        lemma = pv != null ? pv : morpha.lemma(word, tag);
      }
      out.write(lemma);
      out.write('\n');
    }
    out.flush();
  }
}
