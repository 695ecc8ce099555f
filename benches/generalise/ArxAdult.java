// Runs ARX's optimal full-domain search on its own `adult` data and hierarchies, the way ARX's
// examples do (Data.create on the CSV, CSVHierarchyInput per attribute, KAnonymity as the privacy
// model, a relative suppression limit, a quality model from Metric.create*), and prints one JSON
// line per (metric, k): the optimum's levels, its score (ARX's aggregate, as toString prints it,
// and per attribute), the suppressed records, the transformations checked and the time of
// `anonymize` alone (wall clock, after `warmup` untimed runs of the same configuration).
//
// Usage: java -cp <arx classes and lib jars>:. ArxAdult <arx data dir> <k,...> <metric,...> <limit> <warmup> <repeats>
// metric: loss | discernibility | entropy | aecs
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXLattice.ARXNode;
import org.deidentifier.arx.ARXResult;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.criteria.KAnonymity;
import org.deidentifier.arx.io.CSVHierarchyInput;
import org.deidentifier.arx.metric.Metric;

public class ArxAdult {
    static final String[] ATTRIBUTES = {"sex", "age", "race", "marital-status", "education",
            "native-country", "workclass", "occupation", "salary-class"};

    static Data load(String dir) throws Exception {
        Data data = Data.create(dir + "/adult.csv", StandardCharsets.UTF_8, ';');
        for (String a : ATTRIBUTES) {
            File f = new File(dir + "/adult_hierarchy_" + a + ".csv");
            CSVHierarchyInput h = new CSVHierarchyInput(f, StandardCharsets.UTF_8, ';');
            data.getDefinition().setAttributeType(a, Hierarchy.create(h.getHierarchy()));
        }
        return data;
    }

    static Metric<?> metric(String name) {
        switch (name) {
            case "loss": return Metric.createLossMetric();
            case "discernibility": return Metric.createDiscernabilityMetric();
            case "entropy": return Metric.createEntropyMetric();
            case "aecs": return Metric.createAECSMetric();
            default: throw new IllegalArgumentException("unknown metric " + name);
        }
    }

    static String json(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    public static void main(String[] args) throws Exception {
        String dir = args[0];
        String[] ks = args[1].split(",");
        String[] metrics = args[2].split(",");
        double limit = Double.parseDouble(args[3]);
        int warmup = Integer.parseInt(args[4]);
        int repeats = Integer.parseInt(args[5]);
        // optional: "lightning:N", ARX's heuristic (Lightning, best effort bottom-up) checking at
        // most N transformations, instead of the optimal search
        int lightning = args.length > 6 && args[6].startsWith("lightning:")
                ? Integer.parseInt(args[6].substring("lightning:".length())) : 0;
        for (String m : metrics) {
            for (String ks_ : ks) {
                int k = Integer.parseInt(ks_);
                ARXResult result = null;
                long best = Long.MAX_VALUE;
                for (int run = 0; run < warmup + repeats; run++) {
                    Data data = load(dir);
                    ARXConfiguration config = ARXConfiguration.create();
                    config.addPrivacyModel(new KAnonymity(k));
                    config.setSuppressionLimit(limit);
                    config.setQualityModel(metric(m));
                    if (lightning > 0) {
                        config.setAlgorithm(ARXConfiguration.AnonymizationAlgorithm.BEST_EFFORT_BOTTOM_UP);
                        config.setHeuristicSearchStepLimit(lightning);
                    }
                    ARXAnonymizer anonymizer = new ARXAnonymizer();
                    long t0 = System.nanoTime();
                    result = anonymizer.anonymize(data, config);
                    long t = System.nanoTime() - t0;
                    if (run >= warmup) best = Math.min(best, t);
                }
                ARXNode opt = result.getGlobalOptimum();
                if (opt == null) {
                    // a heuristic that found no transformation meeting the model within its steps
                    System.out.println(String.format(Locale.ROOT,
                            "{\"tool\": \"arx\", \"version\": \"%s\", \"metric\": %s, \"k\": %d, "
                                    + "\"suppression_limit\": %s, \"levels\": null, \"score\": null, "
                                    + "\"nodes_checked\": %d, \"optimal\": false, \"seconds\": %.4f, \"runs_timed\": %d}",
                            ARXAnonymizer.VERSION, json(m), k, limit,
                            result.getProcessStatistics().getTransformationsChecked(), best / 1e9, repeats));
                    continue;
                }
                StringBuilder levels = new StringBuilder();
                for (String a : ATTRIBUTES) {
                    if (levels.length() > 0) levels.append(", ");
                    levels.append(json(a)).append(": ").append(opt.getGeneralization(a));
                }
                DataHandle out = result.getOutput(opt, false);
                int suppressed = 0;
                for (int r = 0; r < out.getNumRows(); r++) {
                    if (out.isOutlier(r)) suppressed++;
                }
                Object values = opt.getHighestScore().getValue();
                String perAttribute;
                if (values instanceof double[]) {
                    StringBuilder sb = new StringBuilder();
                    for (double v : (double[]) values) {
                        if (sb.length() > 0) sb.append(", ");
                        sb.append(String.format(Locale.ROOT, "%.17g", v));
                    }
                    perAttribute = "[" + sb + "]";
                } else {
                    perAttribute = "[" + values + "]";
                }
                System.out.println(String.format(Locale.ROOT,
                        "{\"tool\": \"arx\", \"version\": \"%s\", \"metric\": %s, \"k\": %d, \"suppression_limit\": %s, "
                                + "\"levels\": {%s}, \"score\": %s, \"score_per_attribute\": %s, \"suppressed\": %d, "
                                + "\"rows\": %d, \"nodes_checked\": %d, \"optimal\": %b, \"seconds\": %.4f, \"runs_timed\": %d}",
                        ARXAnonymizer.VERSION, json(m), k, limit, levels, opt.getHighestScore().toString(),
                        perAttribute, suppressed, out.getNumRows(),
                        result.getProcessStatistics().getTransformationsChecked(),
                        lightning == 0 && result.getGlobalOptimum() != null,
                        best / 1e9, repeats));
            }
        }
    }
}
