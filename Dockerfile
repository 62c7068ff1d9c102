# The service's image for those who build their own (the build's Jib makes the same one:
# ./mvnw package -Dquarkus.container-image.build=true). First: ./mvnw -B package -DskipTests
FROM eclipse-temurin:17-jre
WORKDIR /work
COPY --chown=185:185 target/quarkus-app/lib/ /work/lib/
COPY --chown=185:185 target/quarkus-app/*.jar /work/
COPY --chown=185:185 target/quarkus-app/app/ /work/app/
COPY --chown=185:185 target/quarkus-app/quarkus/ /work/quarkus/
COPY --chown=185:185 policies/ /etc/acceltriage/policies/
COPY --chown=185:185 tools/ /etc/acceltriage/tools/
ENV ACCELTRIAGE_POLICY_FILE=/etc/acceltriage/policies/default.yaml \
    ACCELTRIAGE_TOOLS_DIR=/etc/acceltriage/tools \
    ACCELTRIAGE_DATA_DIR=/work/data \
    MALLOC_ARENA_MAX=2
USER 185
EXPOSE 8080
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=40", "-XX:TrimNativeHeapInterval=5000", "-XX:+ExitOnOutOfMemoryError", "-jar", "/work/quarkus-run.jar"]
