/**
 * The S3 {@link io.floe.core.object.ObjectStore}: objects in an AWS S3 bucket or an S3-compatible
 * store, through the AWS SDK for Java v2. This is the only package in Floe that sees
 * {@code software.amazon.*}; everything else knows the store by its {@code ObjectStore} contract and
 * the {@link io.floe.objectstore.s3.S3ObjectStoreConfig} the composition root builds.
 */
package io.floe.objectstore.s3;
