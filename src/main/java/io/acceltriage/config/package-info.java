/**
 * Leaf settings shared by stages: secrets, data files with file:line errors, cluster settings. Imports no stage.
 */
package io.acceltriage.config;
