package io.floe.cli.groups;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** Rows printed as columns padded to their widest cell, the way kafka-consumer-groups prints them. */
public final class Table {

    private final List<List<String>> rows = new ArrayList<>();

    public Table(String... headings) {
        rows.add(List.of(headings));
    }

    public void add(Object... cells) {
        List<String> row = new ArrayList<>(cells.length);
        for (Object cell : cells) {
            row.add(cell == null ? "-" : cell.toString());
        }
        rows.add(row);
    }

    public boolean isEmpty() {
        return rows.size() == 1;
    }

    public void print(PrintWriter out) {
        int columns = rows.get(0).size();
        int[] widths = new int[columns];
        for (List<String> row : rows) {
            for (int i = 0; i < columns; i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        for (List<String> row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                line.append(i == columns - 1 ? row.get(i) : pad(row.get(i), widths[i] + 2));
            }
            out.println(line.toString().stripTrailing());
        }
    }

    private static String pad(String cell, int width) {
        return cell + " ".repeat(width - cell.length());
    }
}
