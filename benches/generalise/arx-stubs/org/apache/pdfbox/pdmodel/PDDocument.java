// Compile-only stand-in for Apache PDFBox's PDDocument (its jar is absent from ARX's lib/ snapshot).
// Used only by ARX's PDF certificate, which the benchmark never renders; every method refuses.
package org.apache.pdfbox.pdmodel;

public class PDDocument {
    public static PDDocument load(java.io.InputStream in) throws java.io.IOException {
        throw new java.io.IOException("PDF rendering is not available in this benchmark build");
    }
    public static PDDocument load(java.io.File f) throws java.io.IOException {
        throw new java.io.IOException("PDF rendering is not available in this benchmark build");
    }
    public void save(java.io.OutputStream out) throws java.io.IOException {
        throw new java.io.IOException("PDF rendering is not available in this benchmark build");
    }
    public void close() {}
}
