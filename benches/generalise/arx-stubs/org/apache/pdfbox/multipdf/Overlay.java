// Compile-only stand-in for Apache PDFBox's Overlay (see PDDocument.java).
package org.apache.pdfbox.multipdf;

public class Overlay {
    public enum Position { FOREGROUND, BACKGROUND }
    public void setInputPDF(org.apache.pdfbox.pdmodel.PDDocument d) {}
    public void setAllPagesOverlayPDF(org.apache.pdfbox.pdmodel.PDDocument d) {}
    public void setOverlayPosition(Position p) {}
    public org.apache.pdfbox.pdmodel.PDDocument overlay(java.util.Map<Integer, String> m) throws java.io.IOException {
        throw new java.io.IOException("PDF rendering is not available in this benchmark build");
    }
}
