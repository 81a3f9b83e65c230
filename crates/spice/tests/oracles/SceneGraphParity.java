// Test oracle (never shipped): builds scene graphs with the SPICE jar's own SceneGraph, TupleSet
// and Evaluation from tuple lists read from standard input, one image per line:
// {"image_id": N, "test": [[...tuple...], ...], "refs": [[[...tuple...], ...], ...]}
// (tuples as the parser proposes them: [object], [object, attribute], [subject, object, relation]),
// and prints "image_id<TAB>tp<TAB>fp<TAB>fn" per line, as SpiceScorer would count them.
// Run: java -cp spice-1.0.jar:Meteor-1.5.jar:guava.jar:json-simple.jar:corenlp.jar
//      SceneGraphParity.java synsets|nosynsets < images.jsonl
import edu.anu.spice.Evaluation;
import edu.anu.spice.SceneGraph;
import edu.anu.spice.TupleSet;
import edu.cmu.meteor.aligner.SynonymDictionary;
import edu.cmu.meteor.util.Constants;
import java.io.*;
import java.net.URL;
import java.util.*;
import org.json.simple.JSONArray;
import org.json.simple.JSONObject;
import org.json.simple.parser.JSONParser;

public class SceneGraphParity {
    static ArrayList<String> tuple(Object o) {
        ArrayList<String> t = new ArrayList<String>();
        for (Object s : (JSONArray) o) t.add((String) s);
        return t;
    }

    public static void main(String[] args) throws Exception {
        boolean synsets = args[0].equals("synsets");
        URL d = Constants.DEFAULT_SYN_DIR_URL;
        SynonymDictionary syn = new SynonymDictionary(new URL(d + "/english.exceptions"),
            new URL(d + "/english.synsets"), new URL(d + "/english.relations"));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        PrintStream out = new PrintStream(new BufferedOutputStream(System.out), false, "UTF-8");
        JSONParser parser = new JSONParser();
        String line;
        while ((line = in.readLine()) != null) {
            JSONObject image = (JSONObject) parser.parse(line);
            SceneGraph test = new SceneGraph(syn, synsets);
            for (Object t : (JSONArray) image.get("test")) test.addTuple(tuple(t));
            SceneGraph refs = new SceneGraph(syn, synsets);
            for (Object r : (JSONArray) image.get("refs"))
                for (Object t : (JSONArray) r) refs.addTuple(tuple(t));
            Evaluation e = new Evaluation(new TupleSet(test), new TupleSet(refs), false, synsets);
            out.println(image.get("image_id") + "\t" + e.tp + "\t" + e.fp + "\t" + e.fn);
        }
        out.flush();
    }
}
