// Tregex's own matches, for tests/tregex_parity.rs: every match of every pattern on every tree,
// as preorder node numbers (Tree.iterator()'s order, leaves included).
//
// stdin: "P <n>", n pattern lines, "T <m>", m Penn Treebank trees one a line.
// stdout: "<p> ERROR <message>" for a pattern that does not compile, and for each pattern and
// tree with matches "<p> <t> " and the matches in find() order, separated by spaces, each
// "<root>" followed by ",<name>=<node>" for every bound name, names sorted.
//
// Heads come from TestHeads, a made-up rule the Rust test repeats: the first child whose label
// starts with the parent's first character, else the last child.

import edu.stanford.nlp.ling.StringLabelFactory;
import edu.stanford.nlp.trees.HeadFinder;
import edu.stanford.nlp.trees.LabeledScoredTreeFactory;
import edu.stanford.nlp.trees.PennTreeReader;
import edu.stanford.nlp.trees.Tree;
import edu.stanford.nlp.trees.tregex.TregexMatcher;
import edu.stanford.nlp.trees.tregex.TregexPattern;
import edu.stanford.nlp.trees.tregex.TregexPatternCompiler;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

public class TregexMatches {
  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8));
    int np = Integer.parseInt(in.readLine().substring(2).trim());
    List<String> patterns = new ArrayList<>();
    for (int i = 0; i < np; i++) {
      patterns.add(in.readLine());
    }
    int nt = Integer.parseInt(in.readLine().substring(2).trim());
    List<Tree> trees = new ArrayList<>();
    for (int i = 0; i < nt; i++) {
      PennTreeReader r = new PennTreeReader(new StringReader(in.readLine()),
          new LabeledScoredTreeFactory(new StringLabelFactory()));
      trees.add(r.readTree());
    }
    List<Map<Tree, Integer>> ids = new ArrayList<>();
    for (Tree t : trees) {
      Map<Tree, Integer> m = new IdentityHashMap<>();
      for (Tree n : t) {
        m.put(n, m.size());
      }
      ids.add(m);
    }
    HeadFinder heads = new TestHeads();
    TregexPatternCompiler compiler = new TregexPatternCompiler(heads);
    for (int p = 0; p < np; p++) {
      TregexPattern pattern;
      try {
        pattern = compiler.compile(patterns.get(p));
      } catch (Throwable e) {
        out.write(p + " ERROR " + String.valueOf(e.getMessage()).replace('\n', ' ') + "\n");
        continue;
      }
      for (int t = 0; t < nt; t++) {
        Map<Tree, Integer> id = ids.get(t);
        TregexMatcher m = pattern.matcher(trees.get(t), heads);
        StringBuilder sb = new StringBuilder();
        int found = 0;
        while (m.find() && found < 10000) {
          found++;
          sb.append(' ').append(id.get(m.getMatch()));
          for (String name : new TreeSet<>(m.getNodeNames())) {
            Tree n = m.getNode(name);
            if (n != null) {
              sb.append(',').append(name).append('=').append(id.get(n));
            }
          }
        }
        if (found > 0) {
          out.write(p + " " + t + sb + "\n");
        }
      }
    }
    out.flush();
  }
}

class TestHeads implements HeadFinder {
  public Tree determineHead(Tree t) {
    if (t.isLeaf()) {
      return null;
    }
    String label = t.value();
    for (Tree kid : t.children()) {
      if (!label.isEmpty() && !kid.value().isEmpty() && kid.value().charAt(0) == label.charAt(0)) {
        return kid;
      }
    }
    return t.lastChild();
  }

  public Tree determineHead(Tree t, Tree parent) {
    return determineHead(t);
  }
}
