// Compile-only stand-in for Hadoop's Writable (hadoop-core is absent from ARX's lib/ snapshot);
// Mahout's logistic regression, which ARX's classification utility uses, implements it. The
// benchmark never runs that code.
package org.apache.hadoop.io;

public interface Writable {
    void write(java.io.DataOutput out) throws java.io.IOException;
    void readFields(java.io.DataInput in) throws java.io.IOException;
}
