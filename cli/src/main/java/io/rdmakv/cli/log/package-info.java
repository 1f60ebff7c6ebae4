/**
 * Logging pieces the launcher's Logback configuration names ({@code logback.xml}): a filter that summarizes storms of
 * repeated library warnings. Depends on Logback only.
 */
package io.rdmakv.cli.log;
