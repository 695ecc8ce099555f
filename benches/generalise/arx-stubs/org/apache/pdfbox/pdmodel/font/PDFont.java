// Compile-only stand-in for Apache PDFBox's PDFont (see PDDocument.java).
package org.apache.pdfbox.pdmodel.font;

public class PDFont {}
